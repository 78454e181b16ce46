package analysis

import (
	"regexp"
	"strings"
	"testing"

	"github.com/foiaflow/foiaflow/dataset"
	"github.com/foiaflow/foiaflow/workflow"
)

// TestFeeExtraction: one short reply per mechanism of the fee extractor
// (written for the test, not taken from a corpus): the amount the requester
// must pay to proceed, in integer cents, and its ISO 4217 currency.
func TestFeeExtraction(t *testing.T) {
	t.Parallel()
	cents := func(c int64) *int64 { return &c }
	cases := []struct {
		name     string
		text     string
		want     *int64
		currency string
	}{
		{"total with thousands", "Total cost: $1,234.56. A deposit of $500.00 is required.", cents(123456), "USD"},
		{"minimum payment", "Your minimum payment is $107.00 before staff begin.", cents(10700), "USD"},
		{"deposit only", "Please send a deposit of $75 so we can start the search.", cents(7500), "USD"},
		{"deposit required", "Before any work begins, a deposit of $41,000 is required.", cents(4100000), "USD"},
		{"rate times hours", "This will take 3.5 hours at $30.00 per hour.", cents(10500), "USD"},
		{"minimum hours times rate", "The search will take a minimum 20 hours at $18/hour.", cents(36000), "USD"},
		{"two rate lines", "2 hrs @ $20.00 for search, and 1 hr @ $45.00 for legal review.", cents(8500), "USD"},
		{"pages times price", "There are 300 pages at $0.25 per page.", cents(7500), "USD"},
		{"price then pages", "The agency will charge $0.10 per page for 450 pages. Please confirm before we proceed.", cents(4500), "USD"},
		{"rate then hours", "Programming is billed at $25/hr x 14 hours.", cents(35000), "USD"},
		{"range takes the upper estimate", "We estimate the cost at between $100 and $250, depending on the volume.", cents(25000), "USD"},
		{"dash range", "The estimated fee is $40 - $65.", cents(6500), "USD"},
		{"asked amount after a waiver", "The total cost would be $76.00. One hour has been waived. Please remit a check in the amount of $38.00.", cents(3800), "USD"},
		{"rate only", "Staff time is charged at $25/hour.", nil, ""},
		{"threshold ignored", "Because charges will exceed $40, we provide this estimate: the fee is $62.10.", cents(6210), "USD"},
		{"credit ignored", "Total cost $900 (minus $100 of initial deposit received).", cents(90000), "USD"},
		{"paid application fee is not a quote", "The receipt for the application fee of $30.00 will be forwarded to you.", nil, ""},
		{"waiver is not a quote", "The records are attached. Copies of $12.50 are free of charge for news media.", nil, ""},
		{"no fee due", "No fees are due for this request; the $5.00 minimum was waived.", nil, ""},
		{"table total without dollar", "Qty Description Unit Total\n3 Copies of reports 2.00 6.00\n\n6.00\nTotal Cost:", cents(600), "USD"},
		{"no amount", "We will let you know if fees apply.", nil, ""},
		{"a free first hour is no waiver", "We estimate 9 hours of staff time. The first hour is free of charge and the rest is charged at $40 per hour, an estimated charge of $320.00. We ask for a deposit of half ($160.00) before we begin.", cents(32000), "USD"},
		{"a first request, no fee due", "The initial estimate of $45.00 has been waived, and no fee is due for your first request.", nil, ""},
		{"first quoted, then waived", "We first quoted $12.00 but the fees have been waived.", nil, ""},
		{"free first pages, the rest charged in the next sentence", "The first 100 pages of photocopies requested under the Act are provided free of charge. The remaining 300 pages come to $45.00.", cents(4500), "USD"},
		{"a share deposit alone is the deposit", "Please pay a deposit of 50 percent of the estimated charge, that is $90.00, before we begin.", cents(9000), "USD"},
		{"a free first part, then no fee due", "The first 50 pages are free of charge; as your request came to 30 pages, no fee is due. The $0.10 page rate does not apply.", nil, ""},
		{"share of the estimate is the deposit", "Processing charges apply at $30 per hour, which makes the estimated charge $240.00.\n\nThe Trust requires an advance deposit of 25% of the estimated charge, that is $60.00, before it goes on.", cents(24000), "USD"},
		{"ISO code before", "The cost of photocopying is KES 5 per page, bringing the total to KES 1,500. Kindly make the payment.", cents(150000), "KES"},
		{"upper-case code after", "Please pay the copy fee of 7,300 KRW before the file is released.", cents(730000), "KRW"},
		{"a number before a code", "Please pay the fee for invoice 2024 EUR 30.00 by bank transfer.", cents(3000), "EUR"},
		{"a request number before a code", "Amount due for request 4471 USD 125.00. Please remit payment.", cents(12500), "USD"},
		{"a statute cited by code", "Pursuant to ARS 39-121.01, you will be charged a fee of $0.25 per page.", nil, ""},
		{"a docket cited by code", "Please remit payment of KES 1,500 before we proceed. This relates to MDL 2804.", cents(150000), "KES"},
		{"lower-case code is a word", "The portal runs on php 8 and the fee is $12.00, payable by check.", cents(1200), "USD"},
		{"rupees with /-", "A fee of Rs. 2/- per page is chargeable. You are requested to deposit an additional fee of Rs. 148/- so that the information may be provided.", cents(14800), "INR"},
		{"yen after", "Please pay the fee for implementation of disclosure of 1,240 yen (10 yen per page).", cents(124000), "JPY"},
		{"reais symbol", "The cost of reproduction is BRL 37.50 (R$ 0.25 per page plus R$ 5.00 per DVD). Please pay the GRU.", cents(3750), "BRL"},
		{"fees notice", "We estimate the cost of complying at £560. We are therefore issuing you with a fees notice under section 9 for £46.00 (10% of £460). We need not comply until the fee is paid.", cents(4600), "GBP"},
		{"per set is a rate", "The cost is:\n14 sets of plans at £3.50 per set = £49.00\nPostage = £3.50\nTotal = £52.50\nPlease pay by card.", cents(5250), "GBP"},
		{"Est. labels an estimate", "Est. $56.25 labor (2.25 hrs @ 25/hr). 50% deposit due - $28.13 - before we start. Pay at the counter.", cents(5625), "USD"},
		{"a heading below a total is no deposit", "Labor to separate exempt material: 8.5 hours x $31.40 per hour = $266.90\nFlash drive = $4.50\nESTIMATED TOTAL FEE: $434.30\n\nDEPOSIT REQUIRED: a deposit of half the estimated total, $217.15, is due before we begin.", cents(43430), "USD"},
		{"a worked share", "We estimate the cost of compliance at £460.00. We may charge 10% of the cost between £100 and £600, so the fee payable is:\n10% x (£460.00 - £100.00) = £36.00\nWe need not comply until the fee is paid.", cents(3600), "GBP"},
		{"total closing a long list", "The charge for this request is:\n- Scanning and printing twelve large-format archive sheets at £6.20 per sheet: £74.40\n- Tube packaging, tracked and signed-for postage: £12.00\n- Total: £86.40\nWe will send the maps once we have received it.", cents(8640), "GBP"},
		{"fraction hours", "Review will take an additional 1 ¼ hours at $20/hour.", cents(2500), "USD"},
		{"pounds", "The estimated charge for photocopying is £45.00, payable before we send the copies.", cents(4500), "GBP"},
		{"euros", "Die Gebühr beträgt EUR 120 (the fee is EUR 120).", cents(12000), "EUR"},
		{"australian dollars", "An application fee of A$30 is payable under the FOI Act.", cents(3000), "AUD"},
		{"a bare dollar under Western Australia's Act", "Under the Freedom of Information Act 1992 (Western Australia), a charge of $30.00 is payable before we can process your application.", cents(3000), "AUD"},
		{"a bare dollar under Canada's Act", "The processing of your request under the Access to Information Act will require a fee of $25.00. Please submit payment before we continue.", cents(2500), "CAD"},
		{"a bare dollar under New Zealand's Act", "Under the Official Information Act 1982 we intend to charge $76.00 for the time involved. Please confirm you agree to pay before we proceed.", cents(7600), "NZD"},
		{"a bare dollar from Canadian County (Oklahoma)", "The Canadian County Sheriff's Office fee for a copy of the report is $12.50, payable before release.", cents(1250), "USD"},
		{"a bare dollar from Ontario (California)", "City of Ontario Police Department: the fee for the video is $15.00. Please remit payment.", cents(1500), "USD"},
		{"a bare dollar in a US letter that names Canada", "Your FOIA request for records on trade with Canada will cost $40.00 to process. Please remit payment.", cents(4000), "USD"},
		{"a bare dollar naming two dollar jurisdictions", "Records about the Canada and Australia delegations cost $18.00 to copy; please pay the fee before we send them.", cents(1800), "USD"},
		{"pounds from rate times hours", "Redaction will take 4 hours at £25 per hour.", cents(10000), "GBP"},

		// A statutory cost limit (UK FOIA s.12, the Appropriate Limit and
		// Fees Regulations 2004) or a fee threshold is not a quote.
		{"cost limit with hours", "Locating this would exceed the cost limit of 18 hours or £450 set by the Appropriate Limit and Fees Regulations.", nil, ""},
		{"appropriate limit of", "Complying would exceed the appropriate limit of £600 that applies to central government.", nil, ""},
		{"quoted limit then which is", `Answering would exceed the "appropriate limit" under section 12 of the Act, which is £450 or 18 hours of staff time. You may wish to narrow your request.`, nil, ""},
		{"limit after the amount", "The cost of compliance would be above the £450 limit, so we cannot answer this part.", nil, ""},
		{"limit with its hourly basis", "For local authorities the appropriate limit is £450 (18 hours at £25 an hour). Your request would take longer.", nil, ""},
		{"limit worked out in the next sentence", "The appropriate limit for this authority is £450. It is based on 18 hours of work at £25 per hour.", nil, ""},
		{"limit restated without a cue", "Your request exceeds the appropriate limit of £450. That £450 covers the cost of locating and extracting the information.", nil, ""},
		// The estimated cost of compliance set against the limit is the
		// reason for a refusal (s.12), not a sum asked for.
		{"cost of compliance over the limit", "We estimate that it would cost £1,350 to locate and extract this information, which exceeds the appropriate limit of £450.", nil, ""},
		{"estimated cost above the limit", "The estimated cost of compliance is £1,350, which is above the appropriate limit.", nil, ""},
		{"cost exceeding the limit", "Complying with your request would cost approximately £2,000, exceeding the £450 limit set by the regulations.", nil, ""},
		{"estimate over the cost limit, US", "Our estimate of $3,200 in staff time is over the statutory cost limit, so the request is refused as written.", nil, ""},
		{"compliance cost with pence over the limit", "It would cost £1,350.00 to comply, which exceeds the £450.00 limit.", nil, ""},
		{"over the requester's own limit is a quote", "Processing your request will cost $180.00, which is over the $50 limit stated in your request. Please let us know if you wish to proceed.", cents(18000), "USD"},
		{"fee asked beyond the limit", "The request exceeds the appropriate limit of £450, so we can only proceed if you pay the fee of £700.", cents(70000), "GBP"},
		{"threshold or less", "No fee is charged because the assessable cost totals $25.00 or less.", nil, ""},
		{"threshold or less beside a quote", "Fees of $15.00 or less are waived; the estimated cost of this request is $62.50.", cents(6250), "USD"},
		{"upper bound of an estimate", "The estimated cost of your request is $350 or less.", cents(35000), "USD"},
		{"bound as a policy", "If the cost is $50 or more, we require payment before the search begins.", nil, ""},
		{"threshold noun after the amount", "Costs under the $50 threshold are not charged; the search will take 4 hours at $25 per hour.", cents(10000), "USD"},

		// A fee already paid, received or refunded is not a quote.
		{"application fee received", "Your application fee of $30.00 has been received and your request is now being processed.", nil, ""},
		{"confirm receipt", "We confirm receipt of the $30 application fee and will reply within 30 days.", nil, ""},
		{"thank you for payment", "Thank you for your payment of $45.00; the records are attached.", nil, ""},
		{"received a cheque", "We have received your cheque for £10 and the copies will be posted to you.", nil, ""},
		{"refund of application fee", "If you withdraw your application we will arrange a $30 refund of your application fee.", nil, ""},
		{"fee in brackets received", "Your application fee ($30) was received on 2 May.", nil, ""},
		{"deposit received, balance due", "Your deposit of $100 has been received; the balance due is $250.", cents(25000), "USD"},
		{"receipt of asked for", "Upon receipt of the $50 deposit we will begin the search.", cents(5000), "USD"},
		{"application fee payable", "An application fee of $30 is payable before we can process your request.", cents(3000), "USD"},

		// Itemised statements, worked charges and shares.
		{"item line above its total", "Photocopying, 412 pages at 10p per page: £41.20\nPostage and packing: £6.80\nTotal: £48.00\n\nPlease send a cheque payable to the Council.", cents(4800), "GBP"},
		{"dot leaders to the total", "Paper copies: 212 pages x $0.10 .................................. $ 21.20\n2.5 hours x $15.00 ....................................... $ 37.50\nESTIMATED TOTAL .......................................... $ 66.20", cents(6620), "USD"},
		{"worked charge", "The remaining time is charged at $38 for each half hour: 16 half hours x $38 = $608. Please confirm that you agree to pay this charge.", cents(60800), "USD"},
		{"rate per any unit", "The cost for the bodycam footage is $75 per video, and there are two videos = $150. Let me know if you'd like to proceed.", cents(15000), "USD"},
		{"fee payable as a share", "Total projected cost: £340.00. The fee payable is therefore 10% of £240.00, which is £24.00.", cents(2400), "GBP"},
		{"estimate is therefore, deposit after", "The estimated fee in this case is therefore €360.00 (18 hours x €20). Please pay a deposit of €72.00 before we go on.", cents(36000), "EUR"},
		{"range then up to its end", "We estimate fees of between $200 and $350 for search and duplication. Please confirm that you will pay up to $350.", cents(35000), "USD"},
		{"estimate then a ceiling of it", "We estimate the fees for processing your request at $96.00. We will not go on until you assure us that you will pay fees of up to $96.00.", cents(9600), "USD"},

		// A free part, alternative or inspection is no waiver of the quote.
		{"first hour free", "The first hour of staff time is free of charge, and the rest is charged: 8 hours x $38 = $304. Please confirm you agree to pay.", cents(30400), "USD"},
		{"free alternative on a condition", "Please send a check for $331.50. If you would prefer the file on a CD at no charge, just let us know.", cents(33150), "USD"},
		{"inspection at no charge", "Total: $42.60\nPayment can be made by card. The drawings are also available to view free of charge on the planning portal.", cents(4260), "USD"},
		{"no fee due stays", "No fees are due for this request; the $5.00 minimum was waived.", nil, ""},
		// A cue's window stops at the amount before, whether its currency
		// is a symbol or letters.
		{"a total's cue stops at its amount (symbol)", "Copies: 40 pages. Total: $20.00, or $900.00 for certified copies. Please pay before we proceed.", cents(2000), "USD"},
		{"a total's cue stops at its amount (code)", "Copies: 40 pages. Total: KES 20.00, or KES 900.00 for certified copies. Please pay before we proceed.", cents(2000), "KES"},
		// Every waiver phrase is weighed, not only the first.
		{"a waiver after a free inspection", "You may inspect the records at no charge at our office. The copy fees have been waived under our media policy; the estimate had been $24.00.", nil, ""},
		{"deposit required beside free hours", "Locating the records: 12 hours (after the first 3 hours, which are free of charge) x $30.00/hour = $360.00\nTotal: $360.00\nWe require a 50% deposit of $180.00 to continue.", cents(36000), "USD"},
		{"worked charge far from payment words", "Digitising readings for 16 boreholes: 8 hours\nTotal: 12 hours at £25 per hour = £300.00\n\nBecause of the amount of work involved, we ask that you pay half before we start.", cents(30000), "GBP"},
		{"the pickup alternative", "Copies: $3.50\nPostage: $1.20\nTOTAL DUE: $4.70\nPlease remit payment by check. If you would rather pick them up, the postage charge will be waived and the amount due is $3.50.", cents(470), "USD"},
		{"over the limit the requester mentioned", "The total comes to $62.75 (251 pages @ $0.25), which is over the $50 limit you mentioned. Please confirm you'll pay the $62.75.", cents(6275), "USD"},
		{"a fee per name", "The fee for this search is $25.00 per name. Please remit payment by money order.", cents(2500), "USD"},
		{"a worked charge over a price per unit", "Our charge is £15.00 per property search. The total charge for your request is:\n9 properties x £15.00 = £135.00\nWe will release the information once the charge has been paid.", cents(13500), "GBP"},
		{"a deposit share in brackets", "3 sites x £120.00 = £360.00\nWe ask for a deposit of 50% (£180.00) before work starts, with the balance of £180.00 due before release. Please pay the deposit online.", cents(36000), "GBP"},
		{"so much altogether", "It'll be £4.50 for photocopying (10p a page) plus £4.00 for recorded post, so £8.50 altogether. Cheque payable to the Parish Council.", cents(850), "GBP"},
		{"a bare R outside South Africa is no rand", "The copying fee is $12.00 for the plans of route R625.00 and R1,200.50. Please remit payment by check.", cents(1200), "USD"},
		{"the rand with a decimal comma", "In terms of the Promotion of Access to Information Act, the estimated access fee is R1 260,00, calculated at R30,00 per hour. Please pay a deposit of R420,00.", cents(126000), "ZAR"},
		{"FOISA's share of the cost over £100", "Freedom of Information (Scotland) Act 2002: fees notice. Locating and copying the files will take 22 hours at £15.00 an hour, a projected cost of £330.00. No fee is charged for the first £100; you pay 10% of the rest, £23.00, before we go on.", cents(2300), "GBP"},
		{"FOISA's share with the cost as the total", "Total projected cost: £510.00\nAs the Scottish Information Commissioner's guidance explains, the fee payable is £41.00. Please pay by cheque.", cents(4100), "GBP"},
		{"no FOISA share outside Scotland", "Total projected cost: £510.00\nWe also enclose an invoice for the £41.00 of copying charges from your last request. Please pay by cheque.", cents(51000), "GBP"},
		{"once paid", "The map set is 14 sheets, so that comes to $21.00 (14 x $1.50). Once paid, we will post them out.", cents(2100), "USD"},
		{"an advance payment as a share of the estimate", "Total estimated charge: £410.00\nWe ask for an advance payment of 50% of the estimated charge (£205.00) before we begin.", cents(41000), "GBP"},
		{"a rule line under a column of sums", "Copies: 0 pages x $0.10 ......... $0.00\nLabor and redaction ............... $120.00\nMedia: none ...................... $0.00\nProgramming: not required ........ $0.00\n  ----------\nTOTAL ESTIMATED CHARGES .......... $120.00", cents(12000), "USD"},
		{"an allowance of hours and pages is no waiver", "As a news media requester you are entitled to 100 pages of duplication without charge. We estimate that the fees for this request will be between $40.00 and $75.00. Please confirm in writing within 15 working days that you are willing to pay fees of up to $75.00.", cents(7500), "USD"},
		{"a deposit that came in", "Your $20 deposit came in yesterday and has been applied to your request; we now expect to finish by May 3.", nil, ""},
		{"free under a size, charged above it", "Documents of fewer than 20 pages are supplied free of charge, while larger ones are charged at EUR 0.10 per page.\n  1,080 pages x EUR 0.10 = EUR 108.00\n  Postage = EUR 14.50\n  Total = EUR 122.50\nPlease confirm in writing that you accept this charge.", cents(12250), "EUR"},
		{"a line total before the total", "(i) 236 pages @ Rs. 2/- per page = Rs. 472/-\n(ii) One CD @ Rs. 50/- = Rs. 50/-\nTotal = Rs. 522/-\nThe amount may be deposited in cash.", cents(52200), "INR"},
		{"estimated to be", "We estimate the fees for your request to be $345.00. A deposit of 50% of the estimate ($172.50) must be paid before we continue processing your request.", cents(34500), "USD"},
		{"a sum in millions is a record", "We have asked the Attorney General for a ruling on the $2.3 million invoice you asked about.", nil, ""},
		{"a deposit the requester sent, refunded", "With your request you sent a $25.00 deposit toward copy costs. As no records were found, your $25.00 deposit is being refunded in full.", nil, ""},
		{"an application fee received with the request", "We have received your request, together with the $5.00 application fee. Fees may be charged later for search time and copies.", nil, ""},
		{"an appeal's fee", "We will need 30 more days. You may ask the Commissioner to review this decision; an appeal must be made within 30 days of receiving this letter and be accompanied by the appropriate fee of $25.00. Fees for this request will be estimated later.", nil, ""},
		{"the shilling as Kshs.", "Copies of the minutes will be released on payment of Kshs. 1,500 at the cash office.", cents(150000), "KES"},
		{"a sum in crores is a record", "The expenditure on Lake Road (sanctioned cost Rs. 2.75 crore) runs into 43 pages. You are requested to deposit the additional fee of Rs. 86/- (43 pages @ Rs. 2/- per page).", cents(8600), "INR"},
		{"the total of the items outranks an item", "The remaining 8 hours are chargeable at $10.00 per hour, for an estimated fee of $80.00. Photocopying of 350 pages at $0.20 per page amounts to $70.00. The total estimated fee is therefore $150.00. Please pay a deposit of $75.00.", cents(15000), "USD"},
		// Found by a second read of stop 33's fee changes.
		{"a fee to pay once, not paid", "Once you have paid the $45.00 fee, we will release the records to you.", cents(4500), "USD"},
		{"acknowledge a fee to be paid", "Please sign below to acknowledge the estimated fee of $120.00 and return the form to us.", cents(12000), "USD"},
		{"a deposit to come with an agreement", "Once we have received your signed agreement along with the $60.00 deposit, we will begin the search.", cents(6000), "USD"},
		{"a review of pages is no appeal", "Processing your request requires a review of about 400 pages, with a fee of $60.00 payable in advance.", cents(6000), "USD"},
		{"billions with a decimal", "The council approved a £1.2bn budget; we will send you the invoices once you pay the copying fee.", nil, ""},
		{"FOISA's ceiling is no cost", "Under the Freedom of Information (Scotland) Act 2002 we may charge 10% of costs between £100 and £600, so the maximum fee is £50. Your projected cost is £420.00.\nFEE PAYABLE: £32.00", cents(3200), "GBP"},
		{"a reduced fee outranks the sum it revises", "We estimated search at $40.00 and copies at $20.00, for a total of $60.00. On review, we have reduced the fee to $45.00.", cents(4500), "USD"},
		{"free under a size with no charge for more", "As the records run to fewer than 50 pages, they are provided free of charge. Copies would otherwise be $0.10 per page.", nil, ""},
		{"a $0.00 line beside hours at a rate", "Search time: 3 hours at $25.00 per hour\nCopies: $0.00\nPlease remit payment by check.", cents(7500), "USD"},
		{"the shilling as KSh", "Copies will be released on payment of KSh 1,500 at the cash office.", cents(150000), "KES"},
		{"revised on review", "You asked us to review the charge of £450.00 we notified to you. The revised charge is £180.00; the information will be sent once payment is received.", cents(18000), "GBP"},
		{"reduced to", "I have therefore varied the decision and reduced the estimated fee to €265. A deposit of 20% of the estimated fee, that is €53, is payable before work proceeds.", cents(26500), "EUR"},
		{"total revised fee estimate", "The City has revisited the fee estimate of $1,187.50 issued on July 14.\nSearch time: $240.00\nPreparation: $135.00\nComputer costs: $15.00\nTotal revised fee estimate: $390.00\nA deposit of $195.00 is therefore required.", cents(39000), "USD"},
		{"net of free hours", "9 hours of search at $48.00 per hour, for a total of $432.00, less the two free hours ($96.00), for an estimated fee of $336.00. Please confirm that you agree to pay fees up to $336.00.", cents(33600), "USD"},
		{"balance after a deposit is no net fee", "The Authority estimates the total special service charge at $520.00. The Authority requests a deposit of $150.00 before work begins. The balance of $370.00 will be due before the final production.", cents(52000), "USD"},
		{"estimate is between", "Based on the video, our estimate is between $2,800.00 and $3,400.00. A deposit of 10% of the upper estimate ($340.00) is required before any redaction work begins.", cents(340000), "USD"},
		{"cheaper inspection, deposit required", "ESTIMATED TOTAL      $147.00\nBecause the charges exceed $100, the District also requires a deposit before the information is prepared.\n\nThere is a less costly alternative: you may inspect the records at no charge.", cents(14700), "USD"},
		{"rupees", "You are requested to deposit Rs. 84/- (42 pages @ Rs. 2/- per page) as additional fee, so that the information may be furnished.", cents(8400), "INR"},
		{"reduced by a share, no amount taken off", "Collating the emails will take four hours beyond the free first hour. We intend to charge $40 for each hour, which comes to $160. As the records concern a matter of public interest we have reduced the charge by a quarter, giving a total of $120. Please confirm that you agree to pay.", cents(12000), "USD"},
		{"a reduction before the earlier sum is not this one's", "The revised fee is $60.00, reduced from our first estimate of $200.00. We require a deposit of half the revised fee, which is $30.00. Please pay by cheque.", cents(6000), "USD"},
		{"statutory maximum is no charge", "Search and retrieval will take 12 hours at €20 per hour, so the estimated fee is €240. Please note that the maximum fee payable under the regulations is €700. Please pay a deposit of €48 before we continue.", cents(24000), "EUR"},
		{"maximum that may be charged", "The fee for your request is £75.00, payable before release. For reference, the maximum that may be charged under section 13 is £450.", cents(7500), "GBP"},
		{"statement of worked charges, heading far above", "Itemised statement of estimated charges for request PIR-2024-0311, prepared under the rules of the Attorney General's office.\n\n  Search and retrieval: 6 hours @ $15.00/hr ........................ $90.00\n  Programming time: 1.5 hours @ $28.50/hr .......................... $42.75\n  Overhead (20% of labour) ......................................... $18.00\n  Paper copies, 210 pages @ $0.10 .................................. $21.00\n  Storage media ...................................................... $3.00\n  TOTAL .............................................................. $174.75\n\nYou must respond in writing within 10 business days.", cents(17475), "USD"},
		{"internal review fee named after it", "The estimated fee is therefore:\nSearch and retrieval: 8 hours @ €20.95 = €167.60\nPlease pay a deposit of €33.52 before we go on. If you are unhappy with this decision you may seek an internal review within four weeks. A fee of €30 applies to internal reviews.", cents(16760), "EUR"},
		{"internal review fee before it", "The estimated fee is therefore:\nSearch and retrieval: 4 hours @ €24.00 = €96.00\nThis is payable before release. An internal review fee of €30 applies if you wish to contest it.", cents(9600), "EUR"},
		{"send a check for", "The minutes you asked for come to 22 pages at $0.50 a page, plus $1.85 postage. Send a check for $12.85 made payable to the Town Clerk.", cents(1285), "USD"},
		{"a cheque or money order for", "The fee for a copy of the inspection report is $9.00 plus $3.00 for mailing. Once we receive a check or money order for $12.00 payable to the County, we will mail it to you.", cents(1200), "USD"},
		{"an item of a later total", "The records run to 180 pages, and the law lets us charge $0.25 per page. The total cost is $45.00, plus $6.40 postage for paper copies, for a total of $51.40. We require prepayment of the $51.40 before we make copies.", cents(5140), "USD"},
		{"checks should be made payable", "Under the statute the Township may charge for staff time at the lowest hourly rate of an employee able to do the work, with the first two hours free of charge. Staff estimate 6 hours to copy and redact the 30 inspection reports. After the free hours, the estimated charge is:\n4 hours x $25.00 per hour = $100.00\nChecks should be made payable to the Township of Elm and sent to the Clerk.", cents(10000), "USD"},
		{"free hours on an item line reduce that item", "Our estimate of the charge is $175.00, worked out as follows:\nSearch: 5 hours @ $25.00/hour (first 2 hours free) $75.00\nRedaction: 3 hours @ $25.00/hour $75.00\nScanning: 500 pages @ $0.05/page\n$25.00\nTotal estimate\n$175.00\nWe need half of this before we start.", cents(17500), "USD"},
		{"once we receive payment", "The maps are held as large paper sheets. We can usually email scans free of charge, but these sheets are too big for our scanner and must be copied by an outside printer. There are four sheets; copying costs £12 per sheet, a total of £48.00. Once we receive payment we will post the copies to you.", cents(4800), "GBP"},
		{"a range, payment asked in the next sentence", "Copying the inspection files should come to somewhere between $40 and $65, depending on how many of the large site drawings must go out to a print shop. We need payment before we post them to you.", cents(6500), "USD"},
		{"quarter hours at a price are a rate, not the total", "Searching the planning files will take about three hours. Under our charging policy the first hour is free and later time costs $12 per quarter hour. Our estimated charge is:\n\n  Search: 8 quarter hours at $12     $96.00\n  Printing: 40 pages at $0.50       $20.00\n  Total                             $116.00\n\nWe ask that the charge be paid before we start the search.", cents(11600), "USD"},
		{"an estimate that amounts to a sum outranks the deposit on it", "We expect the search to take some 12 hours, which at the set rate of €25 an hour amounts to €300. As the fee is above €100, a deposit of €60 must be paid before we go on; the rest falls due when the records are sent.", cents(30000), "EUR"},
		{"hours x a rate on a statement line", "Finding and preparing the files will take about 16 hours; the first four are free and later hours are billed at $12.50 per hour. Our estimate:\n\n  Search and preparation: 12 hours x $12.50     $150.00\n\nWe ask for half of it, $75.00, as a deposit before we begin.", cents(15000), "USD"},
		{"a total above a deposit line is the total", "Estimated charges for your request:\nStaff search time (4 hrs x $22.00/hr): $88.00\nPostage cost: $6.00\nTOTAL ESTIMATE: $94.00\nDEPOSIT DUE NOW (25%): $23.50\nWe will start once the deposit arrives.", cents(9400), "USD"},
		{"half hours at an hourly rate are no count of hours", "The search took three half hours at $30.00 per hour.", nil, ""},
		{"a range of salaries is no fee", "Salaries in the department ranged between $40,000 and $60,000 across all grades in the years you asked us about. Copies of the pay scales are attached.", nil, ""},
		{"a cheque received is no quote", "Thank you for your check for $25.00. Your records are attached.", nil, ""},

		// A sum the records report is not a charge.
		{"amount spent", "£1,182.58 was spent on repairing faulty cameras in 2023; a breakdown of the costs is attached.", nil, ""},
		{"council spent", "In 2022 the council spent £3,400 on consultants, as the attached cost table shows.", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := extractFee(normalize(tc.text))
			switch {
			case tc.want == nil && got.cents != nil:
				t.Errorf("fee %d, want none (%s)", *got.cents, got.reason)
			case tc.want != nil && (got.cents == nil || *got.cents != *tc.want):
				t.Errorf("fee %v, want %d (%s)", got.cents, *tc.want, got.reason)
			case tc.want != nil && got.currency != tc.currency:
				t.Errorf("currency %q, want %q", got.currency, tc.currency)
			case tc.want != nil && !strings.HasPrefix(got.reason, "fee "+workflow.Money(*tc.want, tc.currency)+" "):
				t.Errorf("reason %q does not show the fee in %s", got.reason, tc.currency)
			}
		})
	}
}

// TestCorpusFeeQuotes: every FEE_QUOTE reply of the three sets whose label
// states an amount, extracted to the cent (the label's fee_amount is the
// expectation). agency-replies/043's labelled $3,929.86 was cut from its text
// when the fixture was trimmed ("Text trimmed" in its notes), so no
// extractor can read it there; the test checks that it is indeed absent.
func TestCorpusFeeQuotes(t *testing.T) {
	t.Parallel()
	want := map[string]int64{
		"agency-replies/041": 23750, "agency-replies/045": 92584, "agency-replies/047": 8160183,
		"agency-replies/049": 3000, "agency-replies/073": 3125, "agency-replies/075": 4500000,
		"agency-replies/077": 120232, "agency-replies/079": 11200, "agency-replies/081": 711830,
		"agency-replies/083": 3800, "muckrock-2022/020": 200, "muckrock-2022/040": 3800,
	}
	const trimmed = "agency-replies/043"
	replies, err := dataset.AllReplies()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range replies {
		name := r.Set + "/" + r.Name
		label := r.FeeCents()
		if r.Label != "FEE_QUOTE" || label == nil {
			continue
		}
		seen++
		if name == trimmed {
			for _, a := range findAmounts(normalize(r.Text)) {
				if a.cents == *label {
					t.Errorf("%s: the labelled amount is in the text after all; add it to the table", name)
				}
			}
			continue
		}
		w, ok := want[name]
		if !ok || w != *label {
			t.Errorf("%s: label %d cents is not in the table (%d)", name, *label, w)
			continue
		}
		rd, _ := prepare(replyOf(r.Text))
		if rd.fee.cents == nil || *rd.fee.cents != w {
			t.Errorf("%s: fee %v, want %d (%s)", name, rd.fee.cents, w, rd.fee.reason)
		}
	}
	if seen != len(want)+1 {
		t.Errorf("%d labelled fee quotes in the corpora, the table has %d (+1 trimmed)", seen, len(want))
	}
}

func replyOf(text string) workflow.Reply { return workflow.Reply{Text: text} }

// A zero estimate ("Estimated fees: $0.00" in a portal's status notice) is
// read as the fee it states, but it is nothing to pay: no fee fact for the
// model.
func TestZeroFeeIsNoFeeEvidence(t *testing.T) {
	t.Parallel()
	rd, _ := prepare(replyOf("Status: In progress\nEstimated fees: $0.00\nWe will email you when your records are ready."))
	defer rd.release()
	if rd.fee.cents == nil || *rd.fee.cents != 0 {
		t.Fatalf("fee %v, want 0 cents (%s)", rd.fee.cents, rd.fee.reason)
	}
	for _, f := range rd.facts() {
		if f.name == "fee_amount" || f.name == "amount_uncued" {
			t.Errorf("fact %s (%s) for a $0.00 estimate", f.name, f.span)
		}
	}
}

// TestLabelAfter: a label after an amount is the amount's on its own line
// or wrapped onto the next, but not when the next line holds a figure of
// its own (that line's label is its own amount's).
func TestLabelAfter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text  string
		label *regexp.Regexp
		want  bool
	}{
		{"please send a $50.00 deposit today", depositPost, true},
		{"please send the $75.00\ndeposit by check", depositPost, true},
		{"ESTIMATED TOTAL: $90.00\nDEPOSIT REQUIRED (50%): $45.00", depositPost, false},
		{"Amount: $90.00\n\nDeposit instructions follow.", depositPost, false},
		{"Postage: $6.80\nTotal: $48.00", totalPostRe, false},
		{"$48.00\n----------\nTotal", totalPostRe, true},
	}
	for _, c := range cases {
		at := strings.IndexByte(c.text, '$')
		end := at + 1
		for end < len(c.text) && (c.text[end] >= '0' && c.text[end] <= '9' || c.text[end] == '.') {
			end++
		}
		post := after(paragraphRest(c.text, end), 0, 40)
		if got := labelAfter(c.text, end, post, c.label); got != c.want {
			t.Errorf("labelAfter(%q) after %q = %v, want %v", c.text, c.text[at:end], got, c.want)
		}
	}
}

// TestWrittenFeeQuotes: the written fee quotes (dataset/written) extracted
// to the cent, but for the ones the extractor is known to miss; a new miss,
// or a known one mended, fails. Their fee_amount is in the letter's
// currency.
func TestWrittenFeeQuotes(t *testing.T) {
	t.Parallel()
	misses := map[string]string{
		"us-requesters/002": "the fee is in a message the clerk forwards below her own, read as quoted",
		// uk-councils/005 ("A copy is £10 including postage") mended in
		// stop 33: postage is a payment word.
		// Round four, scored before its misses were read (38 of 50 exact;
		// uk-public-bodies/025's "Total" under the charges mended in stop
		// 33: a total that sums the items before it, sumOfParts).
		"intl-plain/025": "a range whose lower end has no currency (\"250 to 400 Euro\")",
		"intl-plain/057": "the Albanian lek as \"ALL\" after words (\"2,400 (two thousand four hundred) ALL\"): ALL is not read as a currency",
		// Round five, scored before its misses were read (45 of 50 exact).
		"uk-wdtk-2/043": "\"It's £14.60 for the A3 colour copies\" with the payment words two lines on",
		// Round six, scored before its misses were read (27 of 31 exact;
		// alaveteli-sites' two were mended in 248e581, us-2010s/034's
		// "Once paid" in stop 33, with eu-australia/106's of round seven).
		"us-2010s/072": "the total for CDs ($30.00) loses to an alternative's larger estimate (\"If you would prefer paper copies, … an estimated cost of $115.00\")",
		// Round seven, scored before its misses were read (29 of 33 exact).
		"muckrock-format-4/116": "the first installment's cost ($18.60) is read as the total, not \"a total estimated cost of $74.40\" after it",
		"uk-foi-2005-2019/113":  "the s.12 cost limit (£450) is set aside and the s.13 fee after it (\"a fee of £1,300.00 would be payable in advance\") with it",
		"uk-foi-2005-2019/118":  "\"The Council does not charge for staff time\" is read as a waiver of the £17.50 charged for media and postage",
		// Round eight, scored before its misses were read (30 of 33 exact).
		"intl-2008-2026/033": "the naira written as a bare N (\"N12,500.00\"), as the rand in intl-english/118",
		// Round nine, scored before its misses were read (32 of 33 exact).
		"us-local-2020s/027": "\"total for the 911 audio … is $35.00 ($15 per audio file + $5 CAD). You can pay at …\": three amounts and no fee word beside them, so no fee is set",
		// Rounds ten to thirteen, scored before their misses were read (21
		// of 22, 17 of 22, 20 of 21 and 20 of 22 exact); mended since: two
		// worked charges over a price per unit, a deposit share in brackets,
		// the rand, "altogether", and (markFOISAShares) FOISA's 10 % share
		// in four letters: uk-2020s/083 (round eight), uk-commonwealth-2015-2026/027,
		// uk-local-2010-2026/048 and devolved-ireland-2008-2026/062.
		// Round fourteen, scored before its misses were read (19 of 21
		// exact with markFOISAShares; nz-canada-2005-2026/100's "Once paid"
		// mended since).
		"nz-canada-2005-2026/107": "the total ($554.00) loses to what it would be if sent electronically (\"the total charge would be $494.00\"), the same sum named twice",
		// Round fifteen, scored before its misses were read (18 of 21
		// exact); all three mended since (an advance payment as a share of
		// the estimate, a rule line under a column of sums, an allowance of
		// pages "without charge").
		// Round sixteen, every reply about money, scored before its misses
		// were read (21 of 24 exact); all three mended since ("£6.50 in
		// total" of media and postage, "fewer than 20 pages … free of
		// charge", a line total "Rs. 50/- = Rs. 50/-" above the total).
		// Round seventeen, every reply about money, scored before its misses
		// were read (21 of 24 exact); two mended since ("estimate … to be").
		"money-commonwealth-2008-2026/093": "a reduced fee for medical-card holders (\"A reduced fee of €10 applies to persons who hold a current medical card\") outranks the fee payable (€15)",
		// Round eighteen, scored before its misses were read (20 of 23
		// exact); all three mended since ("Kshs.", crores, sumOfParts).
		// Rounds nineteen to twenty-three, scored before their misses were
		// read (21 of 22, 19 of 20, 19 of 20, 19 of 21 and 18 of 20 exact);
		// all seven mended since (statutoryMaxRe, reducedTotal,
		// workedStatementTotal, an internal review's fee named after its
		// amount, "a check for", partOfLaterTotal), and with the review fee
		// devolved-ireland-2008-2026/113 (round thirteen).
		// Round twenty-four, scored before its misses were read (19 of 21
		// exact); both mended since (checks "should be made payable to",
		// a reduced total needs no statement items between it and its gross).
		// Round twenty-five, scored before its misses were read (19 of 20
		// exact); mended since ("Once we receive payment").
		// Round twenty-six, scored before its misses were read (20 of 21
		// exact); mended since (a range whose next sentence asks for
		// payment).
		// Round twenty-seven, scored before its misses were read (19 of 21
		// exact); both mended since (half hours at a price are a rate, a
		// sum an estimate "amounts to").
		// Round twenty-eight, scored before its misses were read (20 of 21
		// exact); mended since ("23 hours x $10.00" pairs hours with a rate
		// as "300 pages x $0.10" did).
		// Round twenty-nine, scored before its misses were read (19 of 20
		// exact); mended since (a deposit label on the next line does not
		// make the total above it a deposit).
	}
	written, err := dataset.Written()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range written {
		label := r.FeeCents()
		if r.Label != "FEE_QUOTE" || label == nil {
			continue
		}
		n++
		name := r.Set + "/" + r.Name
		rd, _ := prepare(replyOf(r.Text))
		got := rd.fee.cents != nil && *rd.fee.cents == *label
		switch why, known := misses[name]; {
		case !got && !known:
			t.Errorf("%s: fee %v, want %d (%s)", name, rd.fee.cents, *label, rd.fee.reason)
		case got && known:
			t.Errorf("%s is read right now (was: %s); drop it from the misses", name, why)
		}
	}
	if n != 858 {
		t.Errorf("%d written fee quotes with an amount, want 858", n)
	}
}
