package analysis

import "testing"

// TestAnsweredQuestions: questions of the request answered in place count;
// questions the agency puts to the requester, and questions left
// unanswered, do not.
func TestAnsweredQuestions(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want int
	}{
		{"numbered with figures", "1. How many fines were issued in 2024?\n52\n2. What was the total value?\n£4,100\n", 2},
		{"answer on the question's line", "How many vapes were seized?  48,521\nHow many cases were found? 52\n", 2},
		{"bracketed instruction skipped", "1. Do you have a policy?\n[Please respond Yes or No.]\nAnswer: No\n", 1},
		{"number without a dot", "3  How much did you spend in 17/18?\n(Please provide a total)\nBudget was £5,396,000\n", 1},
		{"clarifying questions to the requester", "1. Could you confirm the date range you need?\nWe need this to search.\n2. Would you like the emails as well?\nThanks\n", 0},
		{"questions without answers", "1. How many cameras are there?\n2. Where are they?\n", 0},
		{"prose answer that reads as no answer", "Are you looking for encumbrances?\nFurther clarification is needed here.\n", 0},
	} {
		if got := answeredQuestions(asciiLower(tc.text)); got != tc.want {
			t.Errorf("%s: answeredQuestions = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestReviewRights finds the challenge paragraph of a final decision.
func TestReviewRights(t *testing.T) {
	for text, want := range map[string]bool{
		"if you are unhappy with the way your request has been handled you may ask for an internal review": true,
		"you may also complain to the information commissioner":                                            true,
		"you may appeal this decision within 90 days":                                                      true,
		"we will respond within 20 working days":                                                           false,
	} {
		if got := reviewRightsRe.findIn(newGramIndex(text)) != ""; got != want {
			t.Errorf("%q: review rights %v, want %v", text, got, want)
		}
	}
}

func TestItemisedResponse(t *testing.T) {
	for text, want := range map[string]bool{
		"please see our response below:\n1. total number of cameras in 2023.\n167 cameras\n2. number of faulty cameras.\n9 cameras": true,
		"our response is as follows\n1) the policy is attached\n2) the budget was £4,000":                                           true,
		// Numbered items with no response lead restate the request.
		"your request:\n1. all emails about parks\n2. all invoices\nwe will respond within 20 working days.": false,
		// Items out of order are not an itemised answer.
		"please see below\n2. second\n3. third": false,
	} {
		ix := newGramIndex(text)
		got := itemisedResponse(ix)
		ix.release()
		if got != want {
			t.Errorf("itemisedResponse(%q) = %v, want %v", text, got, want)
		}
	}
}
