"""Word lists the rules consult: occupations, languages, places, possessions, pastimes.

The relation and pet nouns and the capitalised words that are no names live in
``dualmem_core.vocab.relation_words``, shared with recall and the Editor.

The lists are closed on purpose where a wrong guess would be costly ("I'm a <job>": an open list
would turn "I'm a morning person" into a job) and suffix-based where the class is open.
"""

from __future__ import annotations

import re

from ....vocab.relation_words import PETS

# Occupation head nouns. "I'm a <modifiers> <head>" is a job only when the head is listed here.
JOBS = frozenset(
    """
accountant actor actress analyst architect artist assistant attorney baker banker barber barista
bartender bookkeeper builder butcher carpenter cashier chef chemist clerk coach consultant cook
counselor counsellor courier dancer dentist designer detective developer dietitian director doctor
driver economist editor electrician engineer entrepreneur farmer firefighter fisherman freelancer
gardener geologist hairdresser historian hygienist illustrator instructor intern investor janitor
journalist judge lawyer lecturer librarian lifeguard machinist manager marketer mechanic medic
midwife miner model musician nanny navigator nurse officer optometrist painter paralegal paramedic
pharmacist photographer physician physicist physiotherapist pilot plumber poet police policeman
policewoman politician postdoc producer professor programmer psychiatrist psychologist publisher
realtor receptionist recruiter reporter researcher salesman saleswoman salesperson scientist
secretary senator servant sheriff singer soldier strategist student surgeon surveyor tailor teacher
technician therapist trainer translator tutor veterinarian vet waiter waitress welder writer
administrator coordinator specialist supervisor executive ceo cto cfo coo founder cofounder
co-founder owner president vice-president vp principal dean sergeant lieutenant captain marine
sailor ranger guard caregiver carer housekeeper cleaner teller auditor underwriter actuary
statistician mathematician biologist ecologist astronomer zoologist pharmacologist radiologist
anesthesiologist cardiologist dermatologist pediatrician paediatrician neurologist oncologist
surgeon sonographer dispatcher operator contractor handyman roofer landscaper florist jeweler
jeweller potter sculptor animator copywriter blogger youtuber streamer influencer podcaster
tech aquarist technologist hygienist paramedic optician pharmacist nutritionist therapist
postman postwoman postie solicitor barrister plasterer bricklayer labourer laborer joiner glazier
locksmith tiler decorator gp fireman porter steward stewardess conductor fitter coder sysadmin cop
bouncer apprentice trainee housewife househusband barman barmaid server childminder physio osteopath
chiropractor podiatrist radiographer phlebotomist anaesthetist anesthetist orthodontist academic
magistrate doula tradie tradesman sparky brickie fishmonger greengrocer publican registrar copper dev
""".split()
)
# Words that make "I'm a/an X" a job even though the head is generic ("stay-at-home mom").
JOB_PHRASES = ("stay-at-home mom", "stay-at-home dad", "stay-at-home parent", "full-time mom", "homemaker",
               "stay-at-home mum", "full-time mum",
               "software engineer", "web developer", "data scientist", "graphic designer", "social worker",
               "flight attendant", "real estate agent", "truck driver", "bus driver", "personal trainer",
               "dental hygienist", "project manager", "product manager", "grad student",
               "phd student", "care worker", "youth worker", "support worker", "social care worker",
               "estate agent", "travel agent", "insurance agent", "letting agent")  # fmt: skip
JOB_STATES = frozenset(
    {"retired", "unemployed", "self-employed", "between jobs", "out of work", "freelancing"}
)

DIETS = (
    "vegetarian", "vegan", "pescatarian", "pescetarian", "keto", "paleo", "gluten-free", "gluten free",
    "dairy-free", "dairy free", "kosher", "halal", "plant-based", "plant based", "carnivore", "flexitarian",
    "lacto-vegetarian", "raw vegan", "teetotal", "teetotaler", "low-carb", "low carb", "whole30", "vego",
    "veggie", "veggo", "teetotaller",
)  # fmt: skip

LANGUAGES = frozenset(
    """
english spanish french german italian portuguese dutch russian polish ukrainian czech slovak hungarian
romanian bulgarian greek turkish arabic hebrew persian farsi urdu hindi bengali punjabi tamil telugu
marathi gujarati kannada malayalam nepali sinhala chinese mandarin cantonese japanese korean
vietnamese thai khmer lao burmese indonesian malay tagalog filipino swahili amharic yoruba igbo hausa
zulu xhosa afrikaans swedish norwegian danish finnish icelandic estonian latvian lithuanian serbian
croatian bosnian slovenian albanian macedonian armenian georgian azerbaijani kazakh uzbek mongolian
catalan basque galician welsh irish gaelic latin esperanto asl yiddish somali pashto dari kurdish
isixhosa isizulu sesotho setswana sepedi twi ga ewe fante shona kinyarwanda tigrinya wolof
""".split()
)

# Head nouns that make "I have/bought/got a X" a possession rather than a meeting or a cold.
POSSESSIONS = frozenset(
    """
car truck van suv motorcycle motorbike bike bicycle scooter boat yacht kayak canoe rv camper house
home apartment condo flat cabin cottage townhouse farm ranch property laptop computer pc macbook
ipad tablet iphone phone smartphone camera drone piano guitar violin cello drum drums keyboard
ukulele saxophone trumpet flute telescope console playstation xbox switch tv television e-bike
sedan jeep pickup minivan convertible tesla prius watch ring painting printer vinyl turntable
campervan caravan motorhome ute hatchback moped narrowboat bungalow allotment e-scooter
""".split()
)
INSTRUMENTS = frozenset(
    """
piano guitar violin cello viola bass drums drum ukulele saxophone sax trumpet trombone flute clarinet
harp banjo mandolin harmonica accordion keyboard keyboards organ oboe tuba fiddle bodhran bodhrán
whistle bagpipes synth
""".split()
)
SPORTS_AND_GAMES = frozenset(
    """
tennis soccer football basketball baseball volleyball hockey golf rugby cricket badminton squash
pickleball softball lacrosse handball chess poker bridge sudoku pool billiards darts bowling frisbee
ultimate polo table-tennis ping-pong video-games games dnd d&d mahjong scrabble five-a-side footy netball
hurling camogie gaelic gaelic-football aussie-rules curling ice-hockey snooker cards board-games padel
croquet shinty bowls little-league t-ball tee-ball water-polo field-hockey flag-football dodgeball
wrestling rounders
""".split()
)
ACTIVITIES = frozenset(
    """
yoga pilates karate judo taekwondo jiu-jitsu boxing kickboxing crossfit meditation archery fencing
ballet gymnastics parkour calisthenics tai-chi zumba aikido kung-fu weightlifting powerlifting parkrun
spinning barre cheer cheerleading pottery ceramics choir band orchestra karaoke improv theatre theater
drama scouts piano guitar violin drums swim-team track cross-country
""".split()
)
GO_ACTIVITIES = frozenset(
    """
hiking running swimming fishing camping climbing bouldering skiing snowboarding surfing cycling
biking bowling dancing jogging kayaking canoeing sailing skating skateboarding hunting birdwatching
birding diving scuba-diving snorkeling rowing horseback-riding riding golfing paddleboarding
""".split()
)
# "an avid runner" is a hobby; these agent nouns map to the activity.
HOBBY_AGENTS = {
    "runner": "running", "cyclist": "cycling", "hiker": "hiking", "climber": "climbing",
    "swimmer": "swimming",
    "gardener": "gardening", "reader": "reading", "gamer": "gaming", "knitter": "knitting", "baker": "baking",
    "surfer": "surfing", "skier": "skiing", "golfer": "golf", "birder": "birdwatching", "cook": "cooking",
    "photographer": "photography", "painter": "painting", "dancer": "dancing", "fisherman": "fishing",
}  # fmt: skip

SCHOOL_WORDS = re.compile(
    r"\b(?:University|College|School|Academy|Institute|Polytechnic|Uni|Conservatory|Elementary|High|"
    r"Middle|Prep|Preschool|Kindergarten|Montessori|Seminary|Grammar)\b"
)
KNOWN_SCHOOLS = frozenset(
    """
harvard yale princeton stanford mit caltech oxford cambridge berkeley ucla usc nyu columbia cornell
duke penn upenn brown dartmouth northwestern georgetown purdue rutgers vassar juilliard eth epfl
""".split()
)

DEMONYMS = frozenset(
    """
american canadian british english scottish welsh irish french german italian spanish portuguese dutch
belgian swiss austrian swedish norwegian danish finnish polish russian ukrainian greek turkish mexican
brazilian argentinian chilean colombian peruvian cuban chinese japanese korean indian pakistani
vietnamese thai filipino indonesian australian kiwi nigerian kenyan ghanaian egyptian moroccan
israeli iranian lebanese jewish muslim catholic christian buddhist hindu atheist agnostic argentine
venezuelan dominican haitian jamaican taiwanese bangladeshi nepali malaysian singaporean ethiopian
algerian tunisian iraqi syrian palestinian jordanian saudi emirati afghan armenian georgian czech
slovak hungarian romanian bulgarian serbian croatian bosnian albanian icelandic latvian lithuanian
estonian texan californian sikh mormon latino latina latinx hispanic asian african european black
white gay lesbian bi bisexual straight queer trans transgender nonbinary non-binary introvert extrovert
filipina
""".split()
)

# Places, to tell "I left London" from "I left Google" and to type entities.
PLACES = frozenset(
    p.lower()
    for p in """
Afghanistan|Albania|Algeria|Argentina|Armenia|Australia|Austria|Bangladesh|Belgium|Bolivia|Bosnia|Brazil|
Bulgaria|Cambodia|Cameroon|Canada|Chile|China|Colombia|Costa Rica|Croatia|Cuba|Cyprus|Czechia|
Czech Republic|Denmark|Ecuador|Egypt|England|Estonia|Ethiopia|Finland|France|Georgia|Germany|Ghana|Greece|
Guatemala|Haiti|Honduras|Hong Kong|Hungary|Iceland|India|Indonesia|Iran|Iraq|Ireland|Israel|Italy|Jamaica|
Japan|Jordan|Kazakhstan|Kenya|Korea|South Korea|Kuwait|Laos|Latvia|Lebanon|Lithuania|Luxembourg|Malaysia|
Malta|Mexico|Mongolia|Morocco|Nepal|Netherlands|the Netherlands|Holland|New Zealand|Nicaragua|Nigeria|
Norway|Pakistan|Panama|Paraguay|Peru|Philippines|the Philippines|Poland|Portugal|Puerto Rico|Qatar|
Romania|Russia|Rwanda|Saudi Arabia|Scotland|Senegal|Serbia|Singapore|Slovakia|Slovenia|South Africa|
Spain|Sri Lanka|Sweden|Switzerland|Syria|Taiwan|Tanzania|Thailand|Tunisia|Turkey|Uganda|Ukraine|
United Arab Emirates|UAE|United Kingdom|UK|United States|USA|US|America|Uruguay|Venezuela|Vietnam|Wales|
Zambia|Zimbabwe|Europe|Asia|Africa|South America|North America|Scandinavia|the Caribbean|Caribbean|
Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Hawaii|Idaho|Illinois|
Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|
Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|
North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|
Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|Ontario|Quebec|British Columbia|Alberta|
Bavaria|Tuscany|Sicily|Bali|Tokyo|Kyoto|Osaka|Beijing|Shanghai|Seoul|Bangkok|Hanoi|Manila|Jakarta|Delhi|
New Delhi|Mumbai|Bangalore|Dubai|Istanbul|Cairo|Lagos|Nairobi|Cape Town|Johannesburg|London|Manchester|
Liverpool|Edinburgh|Glasgow|Dublin|Paris|Lyon|Marseille|Berlin|Munich|Hamburg|Frankfurt|Vienna|Zurich|
Geneva|Amsterdam|Rotterdam|Brussels|Copenhagen|Stockholm|Oslo|Helsinki|Reykjavik|Madrid|Barcelona|
Seville|Lisbon|Porto|Rome|Milan|Florence|Venice|Naples|Athens|Prague|Budapest|Warsaw|Krakow|Moscow|Kyiv|
Sydney|Melbourne|Brisbane|Perth|Auckland|Wellington|Toronto|Vancouver|Montreal|Ottawa|Calgary|
Mexico City|Havana|Bogota|Lima|Santiago|Buenos Aires|Rio|Rio de Janeiro|Sao Paulo|São Paulo|
New York City|NYC|Los Angeles|LA|San Francisco|SF|San Diego|San Jose|Seattle|Portland|Denver|Boulder|
Austin|Dallas|Houston|San Antonio|Chicago|Boston|Philadelphia|Pittsburgh|Baltimore|Atlanta|Miami|Orlando|
Tampa|Nashville|Memphis|New Orleans|Detroit|Minneapolis|St. Louis|Kansas City|Phoenix|Tucson|Las Vegas|
Salt Lake City|Sacramento|Oakland|Brooklyn|Queens|Manhattan|the Bronx|Honolulu|Anchorage|Raleigh|
Charlotte|Richmond|Cleveland|Columbus|Cincinnati|Indianapolis|Milwaukee|Madison|Albuquerque|Omaha|
Washington DC|Washington D.C.|DC|the Bay Area|Bay Area|Silicon Valley|Hawaii|Maui|Cancun|Tulum|
""".replace("\n", "").split("|")
    if p
)
# Texting's particles: discourse, not content. At a clause's end they belong to no fact ("im
# nadia btw", "living in leeds atm": ``preprocess._TRAILING``), and none is a name (``truecase``).
TEXTING_PARTICLES = frozenset("btw tbh atm rn imo ngl tho fr".split())


def is_demonym(word: str) -> bool:
    """'Brazilian', 'Catholic': words that follow "I'm" without being a name."""
    return word.lower() in DEMONYMS


def is_place(name: str) -> bool:
    lowered = name.lower()
    return lowered.removeprefix("the ").strip() in PLACES or lowered.strip() in PLACES


def is_language(word: str) -> bool:
    return word.lower() in LANGUAGES


def is_school(name: str) -> bool:
    return bool(SCHOOL_WORDS.search(name)) or name.lower() in KNOWN_SCHOOLS


def job_head(phrase: str) -> bool:
    """True when a noun phrase names an occupation ('senior software engineer', 'nurse')."""
    lowered = phrase.lower().strip().replace("stay at home", "stay-at-home")
    if lowered in JOB_PHRASES or lowered in JOB_STATES:
        return True
    words = re.findall(r"[a-z][a-z'-]*", lowered)
    return bool(words) and (words[-1] in JOBS or words[-1].rstrip("s") in JOBS)


def pet_pattern() -> str:
    """Regex alternation of pet nouns, longest first, with optional plural."""
    names = sorted(PETS, key=len, reverse=True)
    return r"(?:" + "|".join(re.escape(n) for n in names) + r")(?:s|es)?"
