"""Static vocabulary of the generated company: departments and teams, offices, projects, and the
message templates chat conversations are made of.

Templates use `{placeholder}` fields that seed_data.chat fills with real people, teams, projects
and customers (`@{m1}` becomes an @mention of another channel member). A reply or line may start
with a speaker role, e.g. `"it: ..."` (see chat.ROLES); without one, chat picks a plausible member.
Every placeholder used here must be one chat.PLACEHOLDERS knows (a test checks this).
"""

from __future__ import annotations

# ---------------------------------------------------------------- company

COMPANY_PREFIXES = ["North", "Blue", "Bright", "Silver", "Iron", "Clear", "Red", "Green", "Stone", "Swift",
                    "True", "High", "Deep", "Open", "Quiet", "Bold", "Cedar", "Maple", "Harbor", "Summit",
                    "Copper", "Golden", "Lumen", "Nova", "Pine", "River", "Sky", "Terra", "Wild", "Zen"]
COMPANY_SUFFIXES = ["wind", "peak", "field", "stone", "leaf", "forge", "line", "path", "wave", "bridge",
                    "works", "light", "gate", "brook", "ridge", "point", "loop", "craft", "spark", "yard"]
COMPANY_KINDS = ["Labs", "Systems", "Software", "Analytics", "Technologies", "Cloud", "Networks", "Data"]
COMPANY_TLDS = ["com", "com", "com", "io", "co"]
PRODUCT_LINES = ["a workflow automation platform", "a B2B payments platform", "an analytics platform for retailers",
                 "a field-service scheduling platform", "a procurement platform", "a customer data platform"]

# ---------------------------------------------------------------- offices

LOCATIONS = {
    "San Francisco": "America/Los_Angeles", "Seattle": "America/Los_Angeles", "Denver": "America/Denver",
    "Austin": "America/Chicago", "Chicago": "America/Chicago", "New York": "America/New_York",
    "Boston": "America/New_York", "Toronto": "America/Toronto", "London": "Europe/London",
    "Dublin": "Europe/Dublin", "Berlin": "Europe/Berlin", "Amsterdam": "Europe/Amsterdam",
    "Paris": "Europe/Paris", "Lisbon": "Europe/Lisbon", "Singapore": "Asia/Singapore",
    "Sydney": "Australia/Sydney", "Bangalore": "Asia/Kolkata",
}
HQ_CITIES = ["San Francisco", "New York", "Austin", "Boston", "Seattle"]
REGIONS = {
    "na": ["New York", "Austin", "Chicago", "Denver", "Toronto", "Boston", "Seattle", "San Francisco"],
    "emea": ["London", "Dublin", "Berlin", "Amsterdam", "Paris", "Lisbon"],
    "apac": ["Singapore", "Sydney", "Bangalore"],
}

# ---------------------------------------------------------------- departments and teams
# weight: share of headcount; minimum: smallest headcount (head included); teams in priority
# order (small companies keep the first ones). Titles of team members go from junior to senior.

DEPARTMENTS = [
    {"name": "Executive", "weight": 0, "minimum": 2, "head": "Chief Executive Officer", "teams": [
        {"name": "Office of the CEO", "lead": "Chief of Staff", "focus": "company planning and operations",
         "titles": ["Executive Assistant", "Business Operations Analyst", "Strategy Associate"]}]},
    {"name": "Engineering", "weight": 30, "minimum": 5, "head": "Chief Technology Officer", "teams": [
        {"name": "Platform", "lead": "Engineering Manager, Platform", "focus": "core services, CI/CD and developer tooling",
         "titles": ["Software Engineer", "Senior Software Engineer", "Staff Software Engineer"]},
        {"name": "Payments", "lead": "Engineering Manager, Payments", "focus": "billing, invoicing and the payments ledger",
         "titles": ["Software Engineer", "Senior Software Engineer", "Staff Software Engineer"]},
        {"name": "Web", "lead": "Engineering Manager, Web", "focus": "the customer-facing web app",
         "titles": ["Frontend Engineer", "Senior Frontend Engineer", "Staff Frontend Engineer"]},
        {"name": "Mobile", "lead": "Engineering Manager, Mobile", "focus": "the iOS and Android apps",
         "titles": ["Mobile Engineer", "Senior Mobile Engineer", "Staff Mobile Engineer"]},
        {"name": "Data", "lead": "Engineering Manager, Data", "focus": "pipelines, the warehouse and reporting",
         "titles": ["Data Engineer", "Senior Data Engineer", "Analytics Engineer"]},
        {"name": "Infrastructure", "lead": "Engineering Manager, Infrastructure", "focus": "cloud, networking and reliability",
         "titles": ["Site Reliability Engineer", "Senior Site Reliability Engineer", "Staff Site Reliability Engineer"]},
        {"name": "Integrations", "lead": "Engineering Manager, Integrations", "focus": "APIs, webhooks and partner connectors",
         "titles": ["Software Engineer", "Senior Software Engineer", "Staff Software Engineer"]},
        {"name": "Developer Experience", "lead": "Engineering Manager, Developer Experience",
         "focus": "build speed, test tooling and internal docs",
         "titles": ["Software Engineer", "Senior Software Engineer", "Staff Software Engineer"]}]},
    {"name": "Product", "weight": 8, "minimum": 2, "head": "VP of Product", "teams": [
        {"name": "Product Management", "lead": "Director of Product Management", "focus": "roadmap and discovery",
         "titles": ["Associate Product Manager", "Product Manager", "Senior Product Manager"]},
        {"name": "Design", "lead": "Design Manager", "focus": "product design and UX research",
         "titles": ["Product Designer", "Senior Product Designer", "UX Researcher"]},
        {"name": "Product Analytics", "lead": "Product Analytics Lead", "focus": "product metrics and experiments",
         "titles": ["Product Analyst", "Senior Product Analyst"]}]},
    {"name": "Sales", "weight": 18, "minimum": 3, "head": "VP of Sales", "teams": [
        {"name": "Enterprise Sales NA", "lead": "Sales Director, Enterprise North America", "region": "na",
         "focus": "enterprise accounts in North America",
         "titles": ["Account Executive", "Senior Account Executive", "Enterprise Account Executive"]},
        {"name": "Enterprise Sales EMEA", "lead": "Sales Director, EMEA", "region": "emea",
         "focus": "enterprise accounts in Europe, Middle East and Africa",
         "titles": ["Account Executive", "Senior Account Executive", "Enterprise Account Executive"]},
        {"name": "Sales Development", "lead": "Sales Development Manager", "focus": "outbound prospecting and qualification",
         "titles": ["Sales Development Representative", "Senior Sales Development Representative"]},
        {"name": "Mid-Market Sales", "lead": "Mid-Market Sales Manager", "focus": "mid-market new business",
         "titles": ["Account Executive", "Senior Account Executive"]},
        {"name": "Sales Operations", "lead": "Revenue Operations Manager", "focus": "CRM, forecasting and territories",
         "titles": ["Sales Operations Analyst", "Senior Sales Operations Analyst"]},
        {"name": "Sales APAC", "lead": "Sales Director, APAC", "region": "apac", "focus": "accounts in Asia-Pacific",
         "titles": ["Account Executive", "Senior Account Executive"]}]},
    {"name": "Marketing", "weight": 8, "minimum": 2, "head": "VP of Marketing", "teams": [
        {"name": "Growth Marketing", "lead": "Growth Marketing Manager", "focus": "paid acquisition and lifecycle campaigns",
         "titles": ["Marketing Specialist", "Growth Marketer", "Senior Growth Marketer"]},
        {"name": "Product Marketing", "lead": "Director of Product Marketing", "focus": "positioning, launches and enablement",
         "titles": ["Product Marketing Manager", "Senior Product Marketing Manager"]},
        {"name": "Brand and Content", "lead": "Head of Content", "focus": "website, blog and brand",
         "titles": ["Content Writer", "Content Marketing Manager", "Brand Designer"]},
        {"name": "Events", "lead": "Events Manager", "focus": "conferences, webinars and field events",
         "titles": ["Events Coordinator", "Field Marketing Manager"]}]},
    {"name": "Customer Success", "weight": 12, "minimum": 2, "head": "VP of Customer Success", "teams": [
        {"name": "Customer Support", "lead": "Support Manager", "focus": "the support queue and escalations",
         "titles": ["Support Specialist", "Support Engineer", "Senior Support Engineer"]},
        {"name": "Account Management", "lead": "Customer Success Director", "focus": "renewals, adoption and QBRs",
         "titles": ["Customer Success Manager", "Senior Customer Success Manager"]},
        {"name": "Onboarding", "lead": "Onboarding Manager", "focus": "implementation and training of new customers",
         "titles": ["Implementation Specialist", "Senior Implementation Specialist"]},
        {"name": "Support EMEA", "lead": "Support Manager, EMEA", "region": "emea", "focus": "support for European customers",
         "titles": ["Support Specialist", "Support Engineer"]}]},
    {"name": "Finance", "weight": 5, "minimum": 2, "head": "Chief Financial Officer", "teams": [
        {"name": "Accounting", "lead": "Controller", "focus": "close, payables and receivables",
         "titles": ["Staff Accountant", "Senior Accountant", "Accounts Payable Specialist"]},
        {"name": "Financial Planning", "lead": "FP&A Manager", "focus": "budgets, forecasts and board reporting",
         "titles": ["Financial Analyst", "Senior Financial Analyst"]},
        {"name": "Procurement", "lead": "Procurement Manager", "focus": "vendors, contracts and purchase orders",
         "titles": ["Procurement Specialist"]}]},
    {"name": "People", "weight": 5, "minimum": 2, "head": "VP of People", "teams": [
        {"name": "Recruiting", "lead": "Head of Talent Acquisition", "focus": "hiring across the company",
         "titles": ["Recruiting Coordinator", "Recruiter", "Senior Recruiter"]},
        {"name": "People Operations", "lead": "People Operations Manager", "focus": "benefits, payroll and onboarding",
         "titles": ["People Operations Specialist", "People Partner", "Benefits Specialist"]}]},
    {"name": "IT", "weight": 5, "minimum": 3, "head": "Head of IT", "teams": [
        {"name": "IT Support", "lead": "IT Support Lead", "focus": "laptops, accounts, access and the help desk",
         "titles": ["IT Support Specialist", "Systems Administrator", "Senior IT Support Specialist"]},
        {"name": "Security", "lead": "Security Lead", "focus": "security operations, compliance and access reviews",
         "titles": ["Security Analyst", "Security Engineer", "Senior Security Engineer"]}]},
    {"name": "Legal", "weight": 3, "minimum": 2, "head": "General Counsel", "teams": [
        {"name": "Commercial Legal", "lead": "Senior Corporate Counsel", "focus": "customer contracts and NDAs",
         "titles": ["Paralegal", "Contracts Manager", "Corporate Counsel"]},
        {"name": "Compliance", "lead": "Compliance Manager", "focus": "privacy, DPAs and regulatory compliance",
         "titles": ["Compliance Analyst", "Privacy Analyst"]}]},
]

# ---------------------------------------------------------------- projects

CODENAMES = ["falcon", "atlas", "orion", "phoenix", "nebula", "comet", "zephyr", "aurora", "titan", "vega",
             "apollo", "mercury", "polaris", "quasar", "lynx", "kestrel", "sequoia", "cobalt", "ember", "helix",
             "juniper", "meridian", "osprey", "pegasus", "raven", "sierra", "tundra", "voyager"]
# (what the project delivers, departments involved with the leading one first, confidential?)
PROJECTS = [
    ("the new billing engine with usage-based pricing", ("Engineering", "Product", "Finance"), False),
    ("the mobile app redesign", ("Engineering", "Product", "Marketing"), False),
    ("the SOC 2 Type II audit", ("IT", "Engineering", "Legal"), False),
    ("EU data residency", ("Engineering", "Legal", "Sales"), False),
    ("enterprise SSO and SCIM provisioning", ("Engineering", "Sales", "IT"), False),
    ("the spring product launch", ("Marketing", "Product", "Sales"), False),
    ("the data warehouse migration", ("Engineering", "Finance", "Product"), False),
    ("customer health scoring", ("Customer Success", "Engineering", "Product"), False),
    ("the new public website", ("Marketing", "Engineering"), False),
    ("the partner integrations marketplace", ("Engineering", "Sales", "Product"), False),
    ("the AI assistant beta", ("Product", "Engineering", "Customer Success"), False),
    ("the pricing and packaging refresh", ("Product", "Sales", "Finance"), False),
    ("the laptop fleet refresh", ("IT", "Finance"), False),
    ("support tooling consolidation", ("Customer Success", "IT"), False),
    ("the new office build-out", ("IT", "People", "Finance"), False),
    ("the self-serve checkout", ("Engineering", "Product", "Marketing"), False),
    ("the acquisition due diligence", ("Executive", "Finance", "Legal", "Engineering"), True),
    ("the compensation framework review", ("People", "Executive", "Finance"), True),
    ("the reorganisation planning", ("Executive", "People"), True),
]

# ---------------------------------------------------------------- fillers

SERVICES = ["billing-api", "auth-service", "search-indexer", "notifications", "web-app", "mobile-gateway", "ledger",
            "reporting-service", "webhooks", "export-worker", "scheduler", "data-pipeline"]
TOOLS = ["Okta", "the VPN", "Zoom", "Google Drive", "GitHub", "Jira", "Figma", "1Password", "Salesforce", "Zendesk",
         "Notion", "Looker"]
DEVICES = ["laptop", "external monitor", "YubiKey", "headset", "docking station", "keyboard", "webcam"]
METRICS = ["p95 latency", "error rate", "checkout conversion", "signup conversion", "queue depth", "CPU usage"]
ROOMS = ["Everest", "Kilimanjaro", "Denali", "Fuji", "Matterhorn", "Olympus", "Aconcagua"]
TIMES = ["9:30am", "10am", "11am", "11:30am", "1pm", "2pm", "3pm", "4pm", "4:30pm"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
SNACKS = ["the spicy trail mix", "dark chocolate almonds", "the seaweed crisps", "banana bread", "cheese crackers"]
SHOWS = ["Severance", "The Bear", "Shogun", "Slow Horses", "Only Murders in the Building", "Succession"]
SPORTS = ["basketball", "football", "hockey", "baseball", "soccer", "tennis"]
WEEKENDS = ["hiking near the coast", "camping by a lake", "to a food festival", "bouldering", "kayaking",
            "to see my sister's new baby", "to a jazz concert"]
LUNCH = ["the taco place", "the ramen spot on 3rd", "the Thai place", "the food trucks", "the salad bar downstairs"]
BOOKS = ["Project Hail Mary", "The Mom Test", "Thinking in Systems", "Klara and the Sun", "Range", "Tomorrow, and Tomorrow, and Tomorrow"]
PETS = ["cat", "dog", "puppy", "parrot", "kitten"]
BLOCKERS = ["none", "none", "none, all good", "waiting on a review from @{m2}", "need access to the {service} staging environment",
            "waiting on {customer}'s security questionnaire", "blocked on the {service} migration"]

WORK = {
    "executive": ["the board deck", "the {next_quarter} planning doc", "offsite logistics", "prep for the {customer} exec visit"],
    "engineering": ["the {service} retry logic", "code review for PR #{pr}", "the {project} migration for {service}",
                    "on-call handover", "a flaky test in {service}", "the design doc for {service} caching",
                    "upgrading {service} to the new runtime", "the {jira} bug from {customer}"],
    "product": ["customer interviews for {project}", "the {next_quarter} roadmap draft", "the PRD for {project}",
                "usability test notes", "the {metric} experiment readout", "specs for the reports page"],
    "sales": ["the {customer} proposal", "pipeline cleanup in the CRM", "a demo for {customer}",
              "the {customer} renewal paperwork", "prospecting in {city}", "the mutual action plan for {customer}"],
    "marketing": ["the {project} launch brief", "webinar promotion", "the {customer} case study", "ad copy for the spring campaign",
                  "the newsletter", "booth assets for the {city} conference"],
    "customer-success": ["the {customer} QBR deck", "escalation {ticket} for {customer}", "the onboarding plan for {customer}",
                         "renewal risk review", "support macros cleanup", "training session for {customer}"],
    "finance": ["month-end close", "the {quarter} variance analysis", "vendor payments", "the {next_quarter} budget model",
                "invoices for {customer}", "the audit request list"],
    "people": ["offer letters", "the interview plan for the open {role} role", "benefits enrollment", "the onboarding schedule",
               "review cycle calibration", "the engagement survey results"],
    "it": ["laptop setup for new joiners", "the {tool} access requests", "the MDM rollout", "ticket {ticket}",
           "the quarterly access review", "printer config on the 3rd floor"],
    "legal": ["the {customer} MSA redlines", "an NDA for {customer}", "the DPA update", "the trademark filing",
              "contract review for {customer}", "the privacy policy update"],
}

# ---------------------------------------------------------------- scenes
# A scene is a top-level message ("top", one variant picked) with thread replies ("replies",
# a prefix of them, or a sample when "pool" is set), or an inline exchange ("lines").
# Keys: by (speaker role of the top), react (none | some | many), emoji (set name), pin.

EMOJI = {
    "celebrate": ["tada", "heart", "rocket", "100", "clap", "raised_hands", "fire"],
    "welcome": ["wave", "tada", "heart", "raised_hands", "hugging_face"],
    "ack": ["thumbsup", "white_check_mark", "eyes", "pray"],
    "fun": ["joy", "laughing", "heart", "fire", "100"],
    "default": ["thumbsup", "eyes", "white_check_mark", "100", "heart", "rocket"],
}

CONGRATS = ["Congrats!! :tada:", "Amazing work everyone!", "So proud of this team.", "Well deserved!",
            "This is huge, congrats!", "Great news!", "Love to see it!", "Fantastic, thanks for sharing."]

WELCOME = {"top": "Please welcome @{new} who joins the {new_team} team as {new_title}, based in {new_city}! "
                  "{new_first}, we're so glad you're here.",
           "by": "ceo", "react": "many", "emoji": "welcome",
           "replies": ["Welcome @{new}! :wave:", "Welcome aboard, {new_first}!", "So great to have you!",
                       "new: Thank you all! Excited to be here."]}

WRAPUP = {"top": "Project {project} is done and live for every customer. Thank you all! This channel will be archived; "
                 "follow-ups go to the team channels.", "by": "owner", "react": "many", "emoji": "celebrate"}

GENERAL_CEO = [
    {"top": "@channel Quick update on {quarter}: we closed {pct}% above plan and signed {num} new customers. Huge thanks to everyone, especially Sales and Customer Success. The full deck is in the all-hands folder.",
     "replies": CONGRATS, "pool": True, "pin": True},
    {"top": "Save the date: our company offsite is in {offsite_city} on {date}. Travel details will come from the People "
            "team next week. Please block your calendars!",
     "replies": ["Can't wait!", "Will there be a hackathon again?", "ceo: @{prev} yes! More details soon.",
                 "Is it OK to bring a plus-one to the dinner?"], "pin": True},
    {"top": "All-hands this {weekday} at {time}. Agenda: {quarter} results, the Project {project} roadmap and open Q&A. "
            "Drop your questions in the thread.",
     "replies": ["Will it be recorded for folks in {city}?", "ceo: @{prev} yes, the recording will be posted here.",
                 "Question: how are we thinking about hiring for the rest of the year?",
                 "ceo: Good one @{prev}, I'll cover it."]},
    {"top": "A reminder that {date} is a company-wide day off. Enjoy the long weekend, everyone!",
     "replies": ["Thank you!", "Much needed, thanks!"], "pool": True},
    {"top": "We just shipped Project {project} to all customers: {project_desc} was one of our most requested features. "
            "Thank you to everyone who made it happen!", "replies": CONGRATS, "pool": True},
    {"top": "Please join me in congratulating @{m1} on their promotion! Well deserved.",
     "replies": ["Congrats @{m1}!", "So deserved!", "partner: Thank you all, it means a lot!"], "emoji": "celebrate"},
    {"top": "We're updating our travel and expense policy from {date}. The short version: book through the travel "
            "portal and submit receipts within 30 days. Details from Finance in #announcements.",
     "react": "some", "emoji": "ack", "replies": ["Does this apply to conference tickets too?",
                                                  "ceo: @{prev} yes, those go through the portal as well."]},
    {"top": "Our engagement survey is open until {date}. It's anonymous and takes about 10 minutes. Last year we had "
            "87% participation; let's beat it!", "emoji": "ack"},
    {"top": "Heads up: I'll be visiting {customer} most of next week. @{m1} is the point of contact for anything urgent.",
     "react": "some", "emoji": "ack"},
]
GENERAL = [
    {"top": "Lunch and learn on {weekday}: @{m1} will walk through how we use {tool}. Pizza provided at the {hq} office!",
     "react": "some", "emoji": "celebrate"},
    {"top": "Does anyone know who owns the {room} room booking on Thursdays? It's been blocked for weeks.",
     "replies": ["I think it's the {team} team's weekly sync.", "asker: Thanks, I'll ask them."]},
    {"top": "Kudos to @{m1} for jumping in to help {customer} over the weekend. Above and beyond!", "react": "some",
     "emoji": "celebrate", "replies": ["partner: Happy to help!"]},
    {"top": "Reminder: please submit last month's expense reports by {date}.", "react": "some", "emoji": "ack"},
    {"top": "The {hq} office fire alarm will be tested on {weekday} morning, don't panic :)", "emoji": "fun"},
    {"top": "Who's going to the {city} tech meetup next week? Would be great to go together.",
     "replies": ["I'm in!", "Me too, I'll be there after 6.", "asker: Great, let's meet at the entrance."]},
    {"top": "Shout-out to the {team} team for the great demo at all-hands!", "react": "some", "emoji": "celebrate"},
    {"top": "Welcome drinks for everyone who joined this quarter, {weekday} at 5pm in the {hq} office. Everyone's invited!",
     "replies": ["Count me in", "Can we do one in {city} too?"]},
    {"top": "Does anyone have a good template for a project retrospective?",
     "replies": ["There's one in the Engineering wiki, @{asker}.", "asker: Found it, thanks!"]},
]
ANNOUNCEMENTS = [
    {"top": "Open enrollment for benefits starts {date}. Please review your choices in the benefits portal.",
     "by": "head", "react": "some", "emoji": "ack", "pin": True},
    {"top": "The {hq} office will be closed on {date} for building maintenance. Please work from home that day.",
     "by": "head", "react": "some", "emoji": "ack"},
    {"top": "Month-end close: please submit all invoices and expense reports by {date}.", "by": "head", "emoji": "ack"},
    {"top": "New: we now have a quiet room on the 2nd floor of the {hq} office. Book it like any meeting room.",
     "by": "any", "react": "some", "emoji": "celebrate"},
    {"top": "The {quarter} all-hands recording and slides are now in the company drive.", "by": "ceo", "emoji": "ack"},
]
RANDOM = [
    {"top": "Anyone watching {show}? No spoilers please", "replies": ["Just finished it, no spoilers from me!",
                                                                      "It's so good", "Starting it tonight"], "pool": True},
    {"top": "Went {weekend} this weekend, highly recommend.", "replies": ["Looks amazing!", "Where was that?",
                                                                          "asker: @{prev} about two hours from {city}."], "emoji": "fun"},
    {"top": "Anyone else in the {hq} office today? Lunch at {lunch}?", "replies": ["I'm in", "Me too, 12:30?", "asker: Perfect"]},
    {"top": "My {pet} just walked across my keyboard during a customer call. 10/10 would recommend.", "react": "many",
     "emoji": "fun", "replies": ["Pics or it didn't happen", "asker: Posting one now :)"]},
    {"top": "Hot take: {snack} is the best office snack. Fight me.", "emoji": "fun",
     "replies": ["Strongly disagree", "Finally someone said it", "The kitchen was out of it again today"], "pool": True},
    {"top": "Book club pick for next month: {book}. Who's in?", "replies": ["Me!", "Count me in", "Already read it, great pick"],
     "pool": True},
    {"top": "Who's watching the {sport} game tonight?", "replies": ["Wouldn't miss it", "Can't, I have a dinner :("], "pool": True},
    {"top": "PSA: there's cake in the {hq} kitchen for @{m1}'s birthday!", "react": "many", "emoji": "celebrate",
     "replies": ["Happy birthday @{m1}!", "Happy birthday!! :birthday:", "partner: Thanks everyone!"]},
    {"top": "What's everyone's favorite coffee place near the {city} office?", "replies": ["The one on the corner, obviously",
                                                                                          "Anything but the lobby machine"]},
    {"top": "Happy Friday everyone! Any fun weekend plans?", "replies": ["Going {weekend}", "Sleeping :)", "Going {weekend}"],
     "pool": True, "emoji": "fun"},
]
IT_HELP = [
    {"top": "My {device} stopped working this morning. Who can help?",
     "replies": ["it: @{asker} sorry about that! Can you open a ticket so we can track it? I'll swing by after lunch.",
                 "asker: Done, it's {ticket}. Thanks!", "it: The replacement is ready, come grab it at the IT desk."]},
    {"top": "Is {tool} down for anyone else? I keep getting a login error.",
     "replies": ["Same here.", "it: We're seeing it too; it looks like an issue on their side. Their status page says they're investigating.",
                 "it: It's back up. Let us know if you still can't get in."], "emoji": "ack"},
    {"top": "Can someone give me access to the {team} shared drive? @{lead} approved it.",
     "replies": ["it: @{asker} done, you should see it within a few minutes.", "asker: Got it, thank you!"]},
    {"top": "The VPN keeps dropping every ten minutes when I work from {city}.",
     "replies": ["it: Can you try the new client version {version}? It fixes a reconnect bug.", "asker: That fixed it, thanks!"]},
    {"top": "How do I set up the printer on the 3rd floor on a Mac?",
     "replies": ["it: There's a guide pinned in this channel. If it still fails, ping me.", "asker: Worked, thanks @{prev}!"]},
    {"top": "I need a second monitor for my desk in {hq}. Is there a request form?",
     "replies": ["it: Yes, use the hardware request form in the IT portal; we usually ship within a week."]},
    {"top": "I got locked out of {tool} after too many MFA prompts :(",
     "replies": ["it: @{asker} I reset your MFA; you'll be asked to enroll again on your next login.", "asker: All good now, thanks!"]},
    {"top": "Heads up: laptops on macOS older than 14 will be blocked from the VPN from {date}. Please update this week.",
     "by": "it", "react": "some", "emoji": "ack", "pin": True,
     "replies": ["Does the update need a restart?", "it: @{prev} yes, about 20 minutes. Do it at the end of your day."]},
    {"top": "New joiner guide: setting up your laptop, {tool} and MFA, step by step. Pinning it here.", "by": "it",
     "pin": True, "emoji": "ack", "react": "some"},
    {"top": "Is there a way to get a {tool} license? I need it for the Project {project} work.",
     "replies": ["it: Sure, I've assigned you one. It can take an hour to show up.", "asker: Perfect, thanks!"]},
    {"top": "@{it_person} my laptop says the disk is almost full, but I only have a few files. Any ideas?",
     "replies": ["it: It's probably the local mail cache. I'll send you the steps to clear it.", "asker: That freed 40 GB, thanks!"]},
]
SECURITY = [
    {"top": "Phishing alert: we're seeing emails pretending to be from {tool} asking you to 'verify your account'. Do "
            "not click. Report them with the Report Phishing button.", "by": "sec", "react": "many", "emoji": "ack",
     "pin": True, "replies": ["Got one this morning, reported it.", "sec: Thanks @{prev}, that helps a lot!"]},
    {"top": "Reminder: security awareness training is due by {date}. {pct}% of the company has completed it so far.",
     "by": "sec", "react": "some", "emoji": "ack"},
    {"top": "We're rotating the shared credentials for {service} tonight at 8pm. If you use them directly, expect a short "
            "interruption.", "by": "sec", "emoji": "ack", "replies": ["Thanks for the heads-up!"]},
    {"top": "I accidentally pasted an API key for {service} into a channel. What should I do?",
     "replies": ["sec: @{asker} thanks for flagging it quickly! I'm revoking it now; please generate a new one and keep it in the vault.",
                 "asker: Done, the new key is in the vault."]},
    {"top": "The SOC 2 auditors will sample access reviews next week. Managers, please complete your reviews in {tool} by {date}.",
     "by": "sec", "pin": True, "react": "some", "emoji": "ack"},
    {"top": "Is it OK to use a personal password manager for work accounts?",
     "replies": ["sec: Please use the company 1Password vault for anything work related. It's already on your laptop.",
                 "asker: Makes sense, thanks."]},
    {"top": "Please enable MFA on GitHub if you haven't yet; we'll enforce it on {date}.", "by": "sec", "react": "some",
     "emoji": "ack"},
]
TEAM_COMMON = [
    {"top": "Standup\nYesterday: {work}\nToday: {work2}\nBlockers: {blocker}"},
    {"top": "Standup\nYesterday: {work}\nToday: {work2}\nBlockers: {blocker}"},
    {"top": "I'm out of office on {date}; @{m1} is covering for me.", "react": "some", "emoji": "ack"},
    {"top": "Team lunch on {weekday}? I can book a table at {lunch}.", "replies": ["I'm in!", "Count me in",
                                                                                  "Can't make it this week, have fun!"], "pool": True},
    {"top": "Reminder: retro is {weekday} at {time}. Please add your notes to the board beforehand.", "by": "lead", "emoji": "ack"},
    {"top": "Welcome to the {team} channel! Key docs: the team wiki, our on-call schedule and the {quarter} goals. Pinning this.",
     "by": "lead", "pin": True, "emoji": "ack", "react": "some"},
    {"top": "@{m1} do you have a few minutes today to pair on {work}?",
     "replies": ["partner: Sure, how about after lunch?", "asker: Perfect, I'll send an invite."]},
    {"top": "{next_quarter} planning: please add your proposals to the doc by {date}. We'll prioritise together on {weekday}.",
     "by": "lead", "pin": True, "emoji": "ack"},
]
TEAM = {
    "executive": [
        {"top": "The board deck draft for {date} is in the exec folder. @{m1} please add the {quarter} hiring numbers.",
         "replies": ["partner: Will do by end of day."]},
        {"top": "Travel for the {customer} executive visit in {city} is booked. Itinerary in the shared calendar."}],
    "engineering": [
        {"top": "Heads up: deploying {service} {version} to production in 10 minutes.",
         "replies": ["asker: Deploy done, all green."], "emoji": "ack"},
        {"top": "Could someone review PR #{pr}? It's the {service} change we discussed on {weekday}.",
         "replies": ["On it.", "Left a couple of comments, looks good otherwise.", "asker: Addressed, thanks for the quick review!"]},
        {"top": "We're seeing elevated {metric} on {service} since this morning. Looking into it.",
         "replies": ["Could it be yesterday's config change?", "asker: Rolled it back and {metric} is back to normal. Writing up a short incident note.",
                     "lead: Thanks for jumping on it, @{asker}."]},
        {"top": "Reminder: the {service} on-call rotation changes on {weekday}. @{m1} you're up next.", "by": "lead",
         "replies": ["partner: Ack, thanks!"]},
        {"top": "Why does the CI build for {service} take 25 minutes now? It used to be 12.",
         "replies": ["The integration tests moved into the main pipeline last week.", "asker: Ah, I'll look at splitting them out."]},
        {"top": "The design doc for the Project {project} changes to {service} is ready for comments; please review by {date}.",
         "pin": True, "replies": ["Left some comments on the caching section.", "asker: Thanks @{prev}, updated."]},
        {"top": "Found a flaky test in {service}: test_retry_backoff fails about 1 in 20 runs. Filed {jira}."},
        {"top": "@{m1} can you help me understand how {service} talks to {service2}? I'm new to that part of the code.",
         "replies": ["partner: Sure! It publishes events on the queue and {service2} consumes them. Let's do a quick call.",
                     "asker: That would be great, thanks."]}],
    "product": [
        {"top": "Customer interviews for Project {project} this week: {num} calls booked, including {customer}. Notes are in the research folder."},
        {"top": "Roadmap review for {next_quarter} on {weekday}. Please come with your top three bets.", "by": "lead"},
        {"top": "New designs for the Project {project} onboarding flow are up in Figma, feedback welcome by {date}.",
         "replies": ["Love the simplified first step!", "Could we show pricing earlier?", "asker: Good call, I'll try a variant."]},
        {"top": "Usage of the new reports page is up {pct}% week over week.", "react": "some", "emoji": "celebrate"},
        {"top": "@{m1} can you share last month's {metric} numbers? I want them in the Project {project} one-pager.",
         "replies": ["partner: Sending them over this afternoon."]}],
    "sales": [
        # Deal news (wins, losses, stage moves) is never made up here: seed_data.chat_deals posts it
        # from the real opportunities, so chat and the CRM agree.
        {"top": "Reminder: log your calls and meetings in the CRM the same day, it keeps the forecast honest.",
         "by": "lead", "emoji": "ack"},
        {"top": "Who has a good reference customer in {city}? {customer} wants to talk to one before signing.",
         "replies": ["Try {customer2}, they love us.", "asker: Great idea, thanks @{prev}."]},
        {"top": "Pipeline review {weekday} at {time}. Please update your opportunities before then, especially close dates.",
         "by": "lead", "emoji": "ack"},
        {"top": "{customer} is asking for a {pct}% discount on a three-year term. @{head} can we approve that?",
         "replies": ["head: Anything above 20% needs an approval request in the CRM; file it there and I'll look.",
                     "asker: Understood, I'll counter at 20 first."]},
        {"top": "The demo with {customer} went really well. They want a follow-up with their security team; @{m1} can you join?",
         "replies": ["partner: Yes, send me the invite."]},
        {"top": "Updated the competitor battlecards; the pricing objections section is new. Feedback welcome!",
         "replies": ["Super useful, thanks!", "asker: Thanks @{prev}!"]},
        {"top": "Congrats team, we hit {pct}% of the monthly target with a week to go!", "by": "lead", "react": "many",
         "emoji": "celebrate"}],
    "marketing": [
        {"top": "The Project {project} launch blog post draft is ready. @{m1} could you check the technical details?",
         "replies": ["partner: Reviewed, two small fixes in the comments."]},
        {"top": "The webinar with {customer} is confirmed for {date}. {big} registrations so far!", "react": "some", "emoji": "celebrate"},
        {"top": "Paid search CPC went up {pct}% this month, so I'm shifting some budget to LinkedIn."},
        {"top": "Our new case study with {customer} just went live on the website.", "react": "some", "emoji": "celebrate"},
        {"top": "Booth assets for the {city} conference are due {date}. Who's staffing it?",
         "replies": ["I can do day one.", "I'll take day two."]}],
    "customer-success": [
        {"top": "{customer} reports slow exports since the last release. Opening a ticket and looping in engineering.",
         "replies": ["I've seen two similar reports this week.", "lead: Let's escalate to the engineering on-call; please link both tickets."]},
        {"top": "QBR with {customer} on {date}. Health score is green and usage is up {pct}%.", "react": "some", "emoji": "celebrate"},
        {"top": "Heads-up: {customer}'s renewal is in 60 days and their champion just left. Flagging it as at risk.",
         "replies": ["lead: Thanks @{asker}. Let's set up a call with their new VP."]},
        {"top": "CSAT last week was {csat}%. Nice work, everyone!", "by": "lead", "react": "some", "emoji": "celebrate"},
        {"top": "Can someone cover my queue on {weekday} afternoon? I have the {customer} onboarding session.",
         "replies": ["I've got it.", "asker: Thank you @{prev}!"]}],
    "finance": [
        {"top": "Month-end close starts {weekday}. Please get all invoices approved by then.", "by": "lead", "emoji": "ack"},
        {"top": "{customer} paid their overdue invoice; receivables over 60 days are down to {amount}.", "react": "some"},
        {"top": "Budget vs actuals for {quarter} are in the shared folder. Engineering is {pct}% under on cloud spend."},
        {"top": "@{m1} can you check the accrual for the Project {project} contractor costs?", "replies": ["partner: Looking now."]},
        {"top": "Reminder: purchase orders over $10k need CFO approval.", "pin": True, "emoji": "ack"}],
    "people": [
        {"top": "We have {num} offers out this week; two accepted already!", "react": "some", "emoji": "celebrate"},
        {"top": "The performance review cycle kicks off {date}. Managers, please check the timeline doc.", "pin": True},
        {"top": "Interview training on {weekday} at {time}; all new interviewers please join."},
        {"top": "@{m1} could you schedule onboarding for our new {role} starting {date}?", "replies": ["partner: On it!"]}],
    "it": [
        {"top": "Laptop refresh: {num} machines arrive {weekday}. I'll set them up with the new image."},
        {"top": "{tool} seats are almost all used; let's clean up inactive accounts this week.", "replies": ["I'll run the report."]},
        {"top": "Patch night: pushing OS updates tonight, machines will prompt for a restart.", "emoji": "ack"},
        {"top": "Offboarding checklist updated: transfer Drive ownership before deactivating accounts.", "pin": True},
        {"top": "@{m1} can you take ticket {ticket}? It's a {tool} access request from the {team} team.",
         "replies": ["partner: Taking it."]}],
    "legal": [
        {"top": "Redlines from {customer} are back. They want unlimited liability for data breaches; pushing back."},
        {"top": "The DPA template is updated for EU customers; please use version {version} from now on.", "pin": True},
        {"top": "Reminder: any contract above {amount} needs a legal review before signature.", "emoji": "ack"},
        {"top": "@{m1} can you review the NDA with {customer} today? Sales wants to send it out.", "replies": ["partner: Yes, by 3pm."]}],
}
DEALS = [  # generic #deals talk; facts about particular deals come from seed_data.chat_deals
    {"top": "Reminder: discounts above 20% need your manager's approval in the CRM before the quote goes out.",
     "by": "head", "pin": True, "emoji": "ack", "react": "some"},
    {"top": "Forecast call {weekday} at {time}. Please make sure close dates and stages are current.", "by": "head",
     "emoji": "ack"},
    {"top": "Does anyone have a good security-review deck for enterprise prospects?",
     "replies": ["There's one in the sales enablement folder.", "asker: Found it, thanks @{prev}!"]},
    {"top": "Shout-out to @{m1} for jumping on a last-minute demo today. Much appreciated!", "react": "some",
     "emoji": "celebrate"},
    {"top": "If a customer asks about the new reports page, loop in Customer Success for a walkthrough.",
     "emoji": "ack"},
]
PROJECT = [
    {"top": "Kickoff recap for Project {project}: the goal is {project_desc}. Target launch is {date}. The doc and timeline are pinned.",
     "by": "owner", "pin": True, "react": "many", "emoji": "celebrate"},
    {"top": "Status update on {project}: {pct}% of the milestones are done and we're on track for {date}.", "by": "owner",
     "react": "some", "emoji": "ack"},
    {"top": "Risk for {project}: the {service} dependency may slip a week. @{m1} can we talk options?",
     "replies": ["partner: Let's discuss in tomorrow's sync.", "owner: Agree, and let's keep {customer} informed."]},
    {"top": "@{m1} the {project} beta is ready for {customer}; can you coordinate with their admin?",
     "replies": ["partner: Yes, I'll reach out today."]},
    {"top": "Decision log for {project}: we're going with option B, shipping behind a feature flag first.", "by": "owner", "pin": True},
    {"top": "The weekly {project} sync moves to {weekday} at {time}.", "by": "owner", "emoji": "ack"},
    {"top": "Do we have a customer-facing name for the {project} feature yet?",
     "replies": ["Marketing is proposing a few options; they should land by {date}.", "asker: Thanks @{prev}."]},
    {"top": "QA found {num} bugs in the {project} release candidate; two are blockers. Tracking them in {jira}.",
     "replies": ["I'll take the first blocker.", "owner: Thanks, let's re-test {weekday}."]},
]
PRIVATE_PROJECT = [
    {"top": "Reminder: {project} is confidential. Please don't discuss it outside this channel.", "by": "owner", "pin": True},
    {"top": "Next {project} working session is {weekday} at {time}, in the {room} room, not on the shared calendar.", "by": "owner"},
]
LEADERSHIP = [
    {"top": "Headcount plan for {next_quarter}: please send me your top two hiring priorities by {date}.", "by": "ceo",
     "replies": ["Will do.", "Sending mine today."], "pool": True},
    {"top": "The draft board deck is ready; please review your department slides by {weekday}.", "by": "ceo", "pin": True},
    {"top": "Attrition is at {pct}% annualized. @{m1} let's discuss retention at the offsite.",
     "replies": ["partner: Agreed, I'll bring the exit interview data."]},
    {"top": "{customer} escalated to me about last week's outage. @{m1} can we do a post-mortem call with them?", "by": "ceo",
     "replies": ["partner: Yes, I'll set it up for {weekday}."]},
    {"top": "The {next_quarter} budget is locked. Any change above $50k needs a business case.", "by": "ceo", "emoji": "ack"},
]
HIRING = [
    {"top": "New candidate for the {role} role: {candidate}, currently at {customer}. Phone screen on {weekday}."},
    {"top": "Feedback for {candidate}: strong yes from me, great system design.",
     "replies": ["Agree, hire.", "lead: Let's move to an offer."]},
    {"top": "We have {num} candidates at the onsite stage for {role}. Interview panel, please confirm availability.",
     "emoji": "ack"},
    {"top": "Offer accepted by {candidate}! Starting {date}.", "react": "many", "emoji": "celebrate"},
    {"top": "The job description for {role} is updated; please review.", "pin": True},
]
