// Package analysis owns reading agency replies and writing outbound drafts
// (seed 000 §3.2 classify_inbound, §3.5 draft_response, §8 AI service,
// §10.1 structured constraint extraction).
//
// It provides two workflow.Analyzer implementations:
//
//   - Offline: deterministic, explainable, network-free. The reply is
//     normalized (mojibake, OCR noise), split into the agency's own words and
//     the parts that must not drive routing (quoted original requests,
//     signatures, confidentiality footers, portal-system footers, sentences that
//     try to instruct the agent), then scored with weighted evidence rules per
//     class. Confidence comes from the margin between the two best classes;
//     below UnknownBelow the class is UNKNOWN. Every piece of evidence is listed
//     in Analysis.Reasons.
//   - OpenAI: Chat Completions with a strict JSON Schema, the reply passed as
//     JSON-encoded data, the answer validated, and deterministic guards on top
//     (injection flags, fee must appear in the text).
//
// and two workflow.Drafter implementations (offline templates, OpenAI) whose
// HTML is always produced here by escaping text into paragraphs, never taken
// from a model.
//
// Money is integer cents everywhere; dates are UTC midnight.
package analysis
