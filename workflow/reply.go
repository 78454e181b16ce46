package workflow

import "time"

// Attachment is the metadata of one attachment of a message; its bytes are
// in the message store (blobstore) under SHA256.
type Attachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes"`
	SHA256      string `json:"sha256,omitempty"` // lowercase hex SHA-256 of the bytes
}

// Reply is an inbound agency message as the analyzer sees it.
type Reply struct {
	MessageID   string       `json:"message_id"`
	From        string       `json:"from"`
	Subject     string       `json:"subject"`
	Text        string       `json:"text"`
	HTML        string       `json:"html,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	ReceivedAt  time.Time    `json:"received_at"`
	// SenderUnverified: the reply proved its thread (reply address or
	// In-Reply-To) but its sender is not on the agency's allowlist. Nothing
	// it says is acted on without a human (issue 10).
	SenderUnverified bool `json:"sender_unverified,omitempty"`
}
