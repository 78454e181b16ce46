package analysis

import (
	"regexp"

	"github.com/foiaflow/foiaflow/workflow"
)

// rule is one piece of FOIA-domain evidence for a class. Rules run on the
// lower-cased body (the agency's own words); each rule counts once.
type rule struct {
	name   string
	class  workflow.Class
	weight float64
	re     *regexp.Regexp
	fr     fastRe
	// negatable rules do not count when the match is preceded closely by a
	// negation ("no records were withheld", "no redactions").
	negatable bool
}

const (
	cAck  = workflow.ClassAcknowledgment
	cExt  = workflow.ClassExtension
	cFee  = workflow.ClassFeeQuote
	cDen  = workflow.ClassDenial
	cPart = workflow.ClassPartial
	cRdy  = workflow.ClassRecordsReady
	cNone = workflow.ClassNoRecords
	cClar = workflow.ClassClarification
	cWrng = workflow.ClassWrongAgency
	cPort = workflow.ClassPortalRedirect
)

func r(class workflow.Class, w float64, name, pattern string) rule {
	re := regexp.MustCompile(pattern)
	return rule{name: name, class: class, weight: w, re: re, fr: newFastRe(re)}
}

func rn(class workflow.Class, w float64, name, pattern string) rule {
	x := r(class, w, name, pattern)
	x.negatable = true
	return x
}

const agencyWord = `(agency|agencies|department|dept|office|division|bureau|county|city|town|village|police|sheriff|court|clerk|commission|board|district|administration|authority|unit|ministry|state|school|university|college|hospital)`

// rules is the evidence table. Weights: 3–4 a phrase that by itself decides
// the class, 2–2.5 strong, 1–1.5 supporting, ≤1 weak/boilerplate.
var rules = []rule{
	// ACKNOWLEDGMENT
	r(cAck, 3.5, "ack.acknowledge_receipt", `acknowledg(e|es|ing|ment of) (the )?receipt|this (letter|e-?mail|message|notice|is to) (is to )?acknowledges?\b|(confirm(s|ing)?|confirmation of) receipt of your`),
	r(cAck, 1.5, "ack.received_request", `\b(we|i|office|department|agency|unit|division) (have|has) received your (\w+ ){0,3}request|(is|are) in receipt of your|your (\w+ ){0,3}request (has been|was) (received|logged|entered|assigned|opened)`),
	r(cAck, 1.5, "ack.assigned_number", `(assigned|given) (the |a |case |request )?(tracking|request|reference|case|control|log) (number|no\b|#)|has been assigned (case|request|tracking)`),
	r(cAck, 1.5, "ack.being_processed", `(is|are) (currently )?being (processed|reviewed|worked on)|will be processed|(placed|assigned|reassigned) (it |your request )?(in|to|into) (the |our )?[\w-]+ ?(\w+ )?(processing )?queue|in the order (it was|they were|requests are) received`),
	r(cAck, 2.0, "ack.forwarded_internally", `\b(i'?ll|i will|we will|we'll|i have|we have) (forward|forwarded|send|sent|pass|passed|route|routed) (this|it|your (request|e-?mail|message)) (on |along )?to (her|him|them|the appropriate (person|staff)|our|the (person|staff|records))`),
	r(cAck, 1.5, "ack.will_respond", `\b(we|i) will (respond|get back to you|be in touch|follow up|contact you|notify you|let you know)`),
	r(cAck, 0.5, "ack.thanks_for_request", `thank you for (your|submitting|contacting)[^.]{0,40}(request|inquiry)`),
	r(cAck, 1.0, "ack.out_of_office", `(is|am|are) (out|off|away)( of the office)? (today|this week|until)|out of the office`),

	// EXTENSION
	rn(cExt, 2.5, "ext.extension", `\bextension\b|\bextend(ed|ing)? (the )?(time|deadline|response|due date|period|date)`),
	r(cExt, 2.0, "ext.additional_time", `(additional|more|further) (\w+ )?(\(\d+\) )?(business |working |calendar )?(days|weeks|months|time)\b[^.]{0,40}(will be |is |are )?(required|needed|necessary)|(need|require|requires|needs)( an)? (additional|more|further) (\w+ )?(\(\d+\) )?(business |working |calendar )?(time|days|weeks)`),
	r(cExt, 1.5, "ext.anticipated_response", `(anticipate|expect|estimate)[^.]{0,30}(response|decision|determination|completion|to (respond|complete|provide))[^.]{0,20}(by|on or before|no later than|on)`),
	r(cExt, 2.5, "ext.unusual_circumstances", `unusual circumstances`),
	r(cExt, 2.5, "ext.estimated_date", `estimated (date of )?(completion|response|production|release|delivery)( date)?|(anticipated|expected|projected|target) (completion|response|production|release) date|(updated|revised|new) (estimated |estimate[sd]? )?(completion|due|response) date`),
	r(cExt, 2.0, "ext.queue_position", `(requests?|cases?) ahead of (yours|your request|you)|(backlog|complex (\w+ )?queue)`),
	r(cExt, 1.5, "ext.takes_duration", `(take|require|need|be completed in|completed within|complete within|ready in|available in) (approximately |about |an estimated |up to )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|ninety)( \(\d+\))? (more )?(business |working |calendar )?(days|weeks|months|years)`),
	r(cExt, 1.0, "ext.statute_extension", `7922\.535|6253\(c\)|552\(a\)\(6\)\(b\)|15\.235\(2\)`),

	// FEE_QUOTE
	r(cFee, 2.5, "fee.estimate", `(fee|cost|charge|price) estimate|estimated (fees?|costs?|charges?|amount|total)|estimates? (of )?(the |that the )?(fees?|costs?|charges?)|(cost|fee) (breakdown|justification)|breakdown of the (fee|cost)s?`),
	r(cFee, 2.0, "fee.invoice", `\binvoice`),
	r(cFee, 1.5, "fee.deposit", `\bdeposit\b`),
	r(cFee, 2.0, "fee.prepay", `pre-?pay|prepayment|advance payment|payment (is |will be )?required|payment (must|should) be (made|received)`),
	r(cFee, 2.0, "fee.payable", `(checks?|money orders?) (\w+ ){0,2}(made )?payable|make (your |the )?(check|payment) payable|remit (a |the |your )?(check|payment)|please (mail|send|remit) (your |the )?payment|pay (by|with|via|using) (check|credit|card|money order)|(credit card|payment) (can be|may be) (taken|made)`),
	r(cFee, 2.5, "fee.payment_status", `(not|n't|have not|has not|haven't) (yet )?received (any |your |the )?payment|(until|once|upon|after|when) (the |your )?(payment|invoice|fee|deposit)s? (is |are |has been |have been )?(received|paid|made)|receipt of (your |the )?(payment|deposit|fees?)|(invoice|fee|balance) (is |has been )?paid in full`),
	r(cFee, 1.5, "fee.proceed", `(wish|like|want|willing|agree|decide) to (proceed|pay|accept|move forward)|whether you (agree|wish|want|would like)|agree to (this|the|these) (fee|amount|cost|charge)s?|accept the charges`),
	r(cFee, 1.0, "fee.labor", `labor (costs?|rate|charges?)|special service charge|search (fee|time|charges?)|(duplication|copying|copy|programming|research|processing) (fees?|charges?|costs?)|hourly rate|staff time`),

	// DENIAL
	rn(cDen, 3.5, "denial.denied", `(request|it|access|disclosure|appeal)([^.]{0,60}?)? (is|has been|was|are|were|must be|will be) (hereby |respectfully |therefore )?(denied|rejected|declined)|(must|hereby|respectfully|therefore) (deny|denies|decline|declines)|(deny|denying) (your|the|this) (request|access)`),
	rn(cDen, 1.0, "denial.word", `\bdenial\b|\bdenied\b`),
	rn(cDen, 2.0, "denial.exempt", `(not subject to|exempt(ed)? from|prohibited from|protected from) (public )?(disclosure|release|production|inspection)|(is|are) (confidential|privileged) (and|under|pursuant|by law)|(is|are) (generally )?exempt (under|pursuant|by|as|because|since)`),
	r(cDen, 3.0, "denial.withheld_in_full", `withh(eld|olding) (\w+ ){0,3}in (its|their) entirety|withh(eld|olding) (\w+ ){0,3}in full|(release|disclose|produce) (no|none of the) (records|documents)`),
	r(cDen, 2.5, "denial.not_required", `not (required|obligated) to (respond|provide|produce|disclose|release|answer|comply)`),
	r(cDen, 2.0, "denial.will_not", `(will|shall|would) not (be )?(receiving|releasing|release|providing|provide|disclosing|disclose|producing|produce|fulfill|process)`),
	r(cDen, 3.0, "denial.at_an_end", `(responsibility|obligation|duty)[^.]{0,80}(is|are) at an end`),
	r(cDen, 1.0, "denial.court_remedy", `(institute|file|bring|commence) an? (action|suit|petition)|declaratory[^.]{0,30}relief`),
	r(cDen, 3.0, "denial.appeal_missed", `(missed|passed|expired|past) (the )?(deadline|time|period) (to|for) (file )?(an )?appeal|appeal (period|deadline|window) (has )?(passed|expired)`),
	r(cDen, 1.5, "denial.closed", `(consider|considered|deem|deemed) (the|this|your) (matter|request|case) (closed|concluded|resolved)|(matter|request) is (now )?closed`),
	r(cDen, 1.0, "denial.appeal_rights", `(you may|right to|may file an?|may submit an?|you can) (administratively )?appeal|appeals? officer`),
	r(cDen, 2.0, "denial.previously_declined", `(already|previously) (been )?(denied|declined|rejected)|same response`),
	r(cDen, 3.5, "denial.no_records_but_exempt", `(no|any) (\w+ ){0,3}records[^.]{0,60}(except|other than|apart from) (for )?(those|records|documents)[^.]{0,30}exempt`),
	r(cDen, 2.5, "denial.out_of_state", `(out-of-state|non-?resident|not a (citizen|resident)) (requester|requestor|citizen|resident)`),

	// PARTIAL_DELIVERY
	r(cPart, 2.5, "partial.installment", `(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d+(st|nd|rd|th)|next|rolling|partial|interim|initial) (production|installment|release|batch|set|tranche|disclosure) of`),
	r(cPart, 2.0, "partial.more_to_follow", `(next|another|further|additional|subsequent|remaining) (installment|production|release|batch|tranche)|(more|additional|remaining) (records|materials|documents)[^.]{0,30}(to follow|will follow|will be (released|provided|produced))|(anticipate|expect)[^.]{0,40}(release|provide|produce)[^.]{0,40}(materials|records|documents|installment)`),
	r(cPart, 3.0, "partial.in_part", `grant(s|ed)? (the request )?in part|denied in part|partially (granted|denied)|released in part|partial (release|grant|denial|response)|in part and denied`),
	rn(cPart, 1.5, "partial.redacted", `\bredact(ed|ions?)\b`),
	rn(cPart, 1.5, "partial.withheld", `\bwithh(eld|olding)\b`),
	r(cPart, 1.0, "partial.not_yet_available", `(is|are) not (yet )?available (for|until)|not (yet )?available until`),

	// RECORDS_READY
	r(cRdy, 2.5, "ready.attached_records", `(attached|enclosed)( please find| are| is| you will find|,)? (the |your |all )?(\w+ )?(responsive |requested )?(records|documents|files|materials|emails|reports|photos|video|footage|data)\b|(records|documents|files|materials)( responsive to (your|this) request)? (are|is|have been) (attached|enclosed)|please (find|see) (the )?(attached|enclosed) (records|documents|files)|documents attached to the e-?mail`),
	r(cRdy, 2.0, "ready.download", `(files?|records?|documents?) (are |is )?(now )?available (for you )?(to|for) (download|pick ?up|review)|available for download|ready for (pick ?up|download|release|collection)|(download|access) (the |your )?(records|files|documents)`),
	rn(cRdy, 3.0, "ready.completed", `(request|it) (has been|is|was|have been) (completed|fulfilled|satisfied)|completed (your|the|this) request|request (is )?complete\b`),
	r(cRdy, 2.0, "ready.link", `(via|through|using|in|at) (a|the) (sharefile|share ?file|dropbox|box|google drive|onedrive|sharepoint|secure|download|file ?share)( link)?|use the links? (below|above) to (access|download|view)|in the share with`),
	r(cRdy, 1.5, "ready.disclosing", `(is |are |am |we are |i am )(disclosing|releasing|producing|providing|sending) (\w+ )?(the |these |your )?(documents|records|files|materials)|release of [^.]{0,40}(records|materials|documents)`),
	r(cRdy, 1.0, "ready.sent", `(sent|mailed|provided|emailed|delivered|shipped) (out )?to you`),

	// NO_RECORDS
	rn(cNone, 3.0, "norecords.none_found", `no (\w+ ){0,2}(records|documents|files|emails|data)( were| was| have been| could be)? (found|located|identified|exist|responsive)|no responsive (records|documents)|no such (records|documents)|no records (exist|were located)`),
	r(cNone, 3.0, "norecords.unable_to_locate", `(unable|not able|could not|did not|were unable|was unable|cannot|can not) (to )?(locate|identify|find)[^.]{0,30}(records|documents|files|responsive|information)`),
	r(cNone, 2.5, "norecords.does_not_have", `(does|do|did) not (have|maintain|possess|keep|retain|hold|create|collect) (any )?(\w+ ){0,3}(records|documents|files|data|information|database|lists?|logs?)( (responsive|that|which|related|regarding|pertaining|containing))?`),
	r(cNone, 2.5, "norecords.there_are_none", `there (are|were|is|was) no [^.]{0,80}(records|documents|files|data|emails|reports|lists|logs|information)`),
	r(cNone, 2.5, "norecords.not_in_possession", `not in (the )?(possession|custody)|(not|no longer) (\w+ )?(in|within) (our|its|the \w+'s) (possession|custody|control)`),
	r(cNone, 2.5, "norecords.search_negative", `search[^.]{0,60}(yielded|produced|returned|revealed|resulted in) no|(found|located|identified) no (\w+ )?(records|documents)|would not have (any )?records|(records|documents) (do|does) not exist`),
	r(cNone, 1.0, "norecords.destroyed", `\b(expunged|purged|destroyed)\b|retention (period|schedule)`),

	// CLARIFICATION_REQUEST
	rn(cClar, 2.5, "clarify.clarify", `\bclarif(y|ying|ication)\b`),
	r(cClar, 2.0, "clarify.narrow", `\bnarrow(ing)? (\w+ )?(request|scope|search)|more specific|be specific|\bspecify\b|reasonably describe|additional (details|information) (about|regarding|on|to)`),
	r(cClar, 2.5, "clarify.too_broad", `overly broad|unreasonably burdensome|too broad|not specific enough|insufficient (detail|description|information)|does not (reasonably )?describe|not a valid request|unduly burdensome`),
	r(cClar, 2.5, "clarify.on_hold", `(held in abeyance|on hold|paused|tolled) pending (a |your )?(response|clarification|reply)|(we|i) (need|require) (additional|more|further) information|(need|require) (you to|your) (provide|confirm|clarify)`),
	r(cClar, 2.0, "clarify.decision", `(would you like|do you want|do you wish|please (indicate|tell us|let us know) which|which (of|option|records|one))|(reply|respond|let (me|us) know)[^.]{0,30}with (that|your) (decision|choice|answer|preference)|if you would like[^.]{0,120}(reply|respond|let me know|let us know|advise)`),
	r(cClar, 2.0, "clarify.confirm", `(verify|confirm) (the|your|this|that|above)[^.]{0,40}(e-?mail|address|identity|receipt|request|information)|(confirm|advise)[^.]{0,20}(whether|if|that) you (did not |have |had |still )?(receive|received|want|wish|would)|please (advise|confirm)\b`),
	r(cClar, 1.0, "clarify.please_reply", `please,? (reply|respond|let (me|us) know)|let me know\.?$|test (e-?mail|message)`),
	r(cClar, 2.0, "clarify.options", `(if you would like|would you like|do you want|if you prefer|if you wish|if you'd like)[^.]{0,60}(formal|instead|new request|narrow|letter|response)|(or|alternatively),? you (may|can|could) (submit|file|send|narrow|revise|resubmit)`),
	r(cClar, 1.0, "clarify.abandon", `no longer interested|administratively close|(assume|consider)[^.]{0,40}(withdrawn|abandoned|no longer)`),

	// WRONG_AGENCY
	rn(cWrng, 3.5, "wrong.not_custodian", `not the (proper |correct |appropriate |official |right |legal )?(custodian|agency|office|department|holder|keeper|entity|records custodian)`),
	r(cWrng, 3.0, "wrong.should_go_to", `(request|it|inquiry|this)( should| must| needs to| would need to)( be)? (go|goes|sent|directed|redirected|submitted|addressed|made|filed|forwarded|routed) (directly )?to`),
	r(cWrng, 2.5, "wrong.maintained_by_other", `(records?|files?|information|documents?) (are|is) (maintained|held|kept|created|generated|owned) by (the|another|a different|a separate)|(are|is) not maintained by (the|our|this)|(another|a different|a separate) (agency|department|office|entity)`),
	r(cWrng, 2.0, "wrong.contact_other", `(contact|reach out to|direct your request to|submit your request to|send your request to|file your request with|make your request (to|with)) the ([\w.'&-]+ ){0,6}`+agencyWord),
	r(cWrng, 2.5, "wrong.jurisdiction", `(outside|not within|beyond) (the |our |this )(\w+ )?(jurisdiction|purview|authority)|(does|do) not fall (under|within)`),
	r(cWrng, 2.5, "wrong.referred", `(forwarded|referred|transferred|redirected|rerouted) (your request |this request |the request |it )?to (the )?([\w.'&-]+ ){0,6}`+agencyWord),
	r(cWrng, 1.0, "wrong.does_not_apply", `(does|do) not apply to (the|this|our) (court|office|agency|entity)`),

	// PORTAL_REDIRECT
	r(cPort, 3.0, "portal.submit_via", `(submit|file|make|enter|place|resubmit)( a| your| an| the)?( new| open| public)?( \w+)?( records?)? requests? (through|via|using|on|in|at|online through) (the|our|this) [^.]{0,40}(portal|system|website|online|center|link|web ?site)|requests? (must|need to|should|can only) be (submitted|made|filed|entered) (through|via|online|using|on)|(only|no longer) accept[^.]{0,30}(through|via|portal|online)`),
	r(cPort, 2.5, "portal.new_request_link", `(link|portal|website)[^.]{0,60}(make|submit|file|create|open)( a| an)?( new)?( \w+)?( records?)? (request|account)|create an account|request (a )?temporary password|login id|user ?name and password`),
	r(cPort, 2.5, "portal.login", `(log ?in|sign ?in|logging in|register|registering|registered)( to| with| into| at| on)? (the|our|your) [^.]{0,40}(portal|center|system|account)`),
	r(cPort, 1.5, "portal.track", `track (the )?(progress|status) of (your|this|the) request|(public|open) records (portal|center)|records request (portal|center)|online portal`),
	r(cPort, 1.0, "portal.use_link", `(use|utilize|go to|click|visit) the (below |above |following )?(link|portal|url|website)`),
}
