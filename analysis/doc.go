// Package analysis owns reading agency replies and writing outbound drafts
// (seed 000 §3.2 classify_inbound, §3.5 draft_response, §8 AI service,
// §10.1 structured constraint extraction).
//
// It provides three workflow.Analyzer implementations:
//
//   - Offline: deterministic, explainable, network-free. It reads a reply as
//     features → model → calibrated decision → evidence:
//     1. features (features.go): the reply is normalized (mojibake, OCR
//     noise), instruction-like sentences are removed, and it is split into
//     zones (zones.go): the agency's own words, and the quoted earlier
//     messages, restated request letters, signatures, confidentiality
//     footers, portal-system footers and courtesy closings that must not
//     drive the class (they contribute one z: indicator each). From the
//     agency's words come hashed word and word-pair features, sentence
//     concept pairs (concepts.go), FOIA cues (cues.go: phrase families
//     such as "do not hold the information" or "is exempt under section
//     40(2)", each with the class it speaks for), and the exact
//     extractors' facts (fee amount, exemption citation, portal, download
//     link: fee.go, extract.go). Attachment names are features too.
//     2. model (model.go): a multinomial logistic regression trained by
//     cmd/train (package analysis/training) on the project's 155 labelled
//     real replies and 9,600 replies written for training
//     (dataset/written), and embedded as model.txt. The cues' hand-set
//     weights are the prior the training regularises towards, not a
//     verdict; words, word pairs and sentence concepts are learned from
//     the replies alone. Each feature also has a copy per source (each
//     real set, the written replies) that training uses and the model
//     leaves out, so the shipped weights keep what holds across sources
//     (training.Options.SourceCopies).
//     3. calibrated decision: the probability is softmax(logits/T), T fitted
//     on real replies held out by source (leave-one-set-out), so MIN_CONFIDENCE
//     means what it says: T is Model.AgreementTemperature (fitted on the
//     held-out replies the cue table does not read as another class) where
//     the table does not, Model.Temperature (fitted on all) where it does.
//     Below UnknownBelow, or when the reply is neither English nor German, the class is UNKNOWN (a reply is English
//     when English function words are 12 % of its words, or when it has
//     fewer than 25 words and none of them foreign: language). Three cases give a
//     class only as a reviewer's suggestion, confidence at most
//     ReviewMaxConfidence: a German reply (read by the German cue family;
//     the model has seen six); a model class that the cue table's own
//     weights do not give (a second reading, cueTableClass) at a
//     probability below OverruleConfidence; and a reply without any FOIA
//     cue (other than a weak one such as "thank you for your request") or
//     fact, read from words alone, at a probability from
//     wordsAloneSuggest (0.5; below it, UNKNOWN) to OverruleConfidence.
//     4. evidence: the features that pushed the winning class over the
//     runner-up, each with the text it came from, are the reasons a
//     reviewer sees; facts come from the exact extractors.
//   - OpenAI: Chat Completions with a strict JSON Schema, the reply passed as
//     JSON-encoded data, the answer validated, and deterministic guards on top
//     (injection flags, fee must appear in the text).
//   - SecondOpinion: the OpenAI analyzer with the offline model beside it;
//     confident disagreement goes to a human.
//
// and two workflow.Drafter implementations (offline templates, OpenAI) whose
// HTML is always produced here by escaping text into paragraphs, never taken
// from a model.
//
// Money is integer cents with an ISO 4217 currency; dates are UTC midnight.
package analysis
