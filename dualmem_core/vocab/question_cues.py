"""The words a question uses to ask for each predicate's facts: data for ``writer/intent.py``.

Each entry lists alternatives of one regular expression, matched case-insensitively as whole
words (a cue may end in a possessive: "her mum's job"). Written for English in general (British,
Irish, American, Indian and Australian wording, texting, an agent's terse tool query), checked
against the hand-written question corpus ``fixtures/intent/questions.jsonl``.
"""

from __future__ import annotations

import re

_APOS = "['’]"

CUES: dict[str, tuple[str, ...]] = {
    "lives_in": (
        "live[sd]?", "living", "reside[sd]?", "residing", "residence", "based", "home city",
        "home ?town is now", "stay(?:s|ing)?", "located", "location", "home address", "moved?(?: to)?",
        "relocated?", "settled", "city", "town", "neighbou?rhood", "suburb", "country", "time ?zone",
        "whereabouts", "lives? now",
        r"where(?:['’]s| is) (?:s?he|they|the user|\w+) (?:now|these days|nowadays)",
    ),
    "from": (
        "grow(?:s|ing)? up", "grew up", "raised", "from originally", "originally from", "hometown",
        "home town", "born where", r"where (?:was|were) \w+(?: \w+)? born", "birthplace", "native", "roots",
        "nationality", "citizen(?:ship)?", r"(?:is|are|['’]s) \w+ from", "comes? from", "hails? from",
        r"where .{0,30}\bfrom\b",
    ),
    "works_at": (
        "work(?:s|ed|ing)?(?: at| for)", "teach(?:es|ing)? at", "taught at", "employ(?:s|ed|er|ers|ment)?",
        "compan(?:y|ies)", "firm", "startup", "start-up", "workplace", "office", "organi[sz]ation", "hired",
        "job at", "working where", r"where(?:['’]?s)?\b.{0,40}\bwork(?:s|ed|ing)?", "place of work",
        "who pays",
    ),
    "job_title": (
        "jobs?", "do for (?:a )?(?:living|work)", "(?:for|4) work", "profession(?:al)?", "occupation",
        "line of work", "role", "position", "career", "title", "trade",
        r"what (?:do|does|did) \w+(?: \w+)? do", "work(?:s|ing)? as", "what kind of work", "gig",
        "teach(?:es|ing)?", "taught", "retired", "retire",
    ),
    "studies_at": (
        "universit(?:y|ies)", "uni", "college", "school", "schooling", "stud(?:y|ies|ying|yin|ied) at",
        "enrolled", "alma mater", "graduated?(?: from)?", "campus", "institute",
        "do (?:his|her|their|my) (?:mba|masters|master's|phd|degree|undergrad)",
    ),
    "studies": (
        "stud(?:y|ies|ying|yin|ied)", "major(?:ing|ed)?", "degree", "course", "subject", "phd", "master'?s",
        "thesis", "mba",
    ),
    "spouse": ("wife", "wives", "husband", "hubby", "married", "marry", "spouse", "missus", "mrs"),
    "partner": (
        "partner", "girlfriend", "boyfriend", "gf", "bf", "dating", "date", "seeing", "fianc[eé]e?",
        "engaged", "other half", "significant other", "romantic", "relationship with", "together with",
        "going out with", "in love", "fella", "ex", r"ex-\w+", r"who(?:['’]s| is| was) \w+ (?:seeing|with)",
    ),
    "relationship_status": (
        "single", "relationship status", "relationship", "married", "engaged", "divorced", "widowed",
        "marital", "seeing (?:any|some)one", "dating (?:any|some)one", "taken", "attached",
    ),
    "sibling": ("siblings?", "brothers?", "sisters?", "bro", "sis", "twin", "only child"),
    "parent": (
        "parents?", "mothers?", "mum", "mom", "mam", "ma", "mommy", "mammy", "fathers?", "dad", "daddy", "da",
        "papa", "mama", "amma", "appa", "folks", "step-?(?:mum|mom|dad|father|mother)",
    ),
    "child": (
        "kids?", "kiddos?", "child", "children", "sons?", "daughters?", "bab(?:y|ies)", "toddlers?",
        "youngest", "eldest", "oldest (?:one|kid|child)", "little ones?", "offspring", "a parent",
        "a (?:mum|mom|dad|father|mother)",
    ),
    "relative": (
        "cousins?", "aunts?", "aunties?", "uncles?",
        "grand(?:ma|pa|mother|father|parents?|kids?|son|daughter|children|child)s?", "nan", "nana", "gran",
        "granny", "nieces?", "nephews?", "in-laws?", r"\w+-in-law", "relatives?", "family", "families",
    ),
    "friend": (
        "friends?", "mates?", "pals?", "besties?", "bff", "buddy", "buddies", "hangs? out", "social circle",
        r"socialis\w*",
    ),
    "colleague": (
        "colleagues?", "co-?workers?", "boss", "manager", "teammates?", "works? with", "team", "supervisor",
    ),
    "knows": (
        "room-?mates?", "flat-?mates?", "house-?mates?", "neighbou?rs?", "classmates?", "know[sn]?",
        "acquaintances?",
    ),
    "pet": (
        "pets?", "dogs?", "cats?", "pupp(?:y|ies)", "pup", "kittens?", "kitty", "animals?", "furry",
        "fur ?bab(?:y|ies)", "hamsters?", "rabbits?", "bunn(?:y|ies)", "parrots?", "birds?", "fish",
        "guinea pigs?", "tortoises?", "horses?", "breed",
    ),
    "likes": (
        "likes?", "liked", "love[sd]?", "enjoy(?:s|ed)?", "into", "fan of", "fond of", "passionate",
        "keen on", "interests?", "interested", "adore[sd]?", "favou?rites?", "feel about", "think of",
        "opinion", "music",
    ),
    "dislikes": (
        "dislikes?", "dislike[ds]", "hates?", "hated", r"can['’]?t (?:\w+ )?stand", "cannot stand",
        "can not stand", "not a fan", "detests?", "avoid(?:s|ed)?", "doesn['’]?t like", "don['’]?t like",
        "loathes?", "pet peeves?", r"puts? (?:\w+ ){1,2}off", "put off", "aversions?", "averse", "feel about",
    ),
    "hobby": (
        "hobb(?:y|ies)", "free time", "spare time", "for fun", "pastimes?", "weekends?", "downtime",
        "leisure", "unwind", "pursuits?", "past-?times?", "sports?", "plays?", "playing", r"go(?:es)? \w+ing",
        r"still \w+ing", "gets? up to",
    ),
    "diet": (
        "diet(?:ary)?", "vegetarian", "vegan", "pescatarian", "pescetarian", "keto", "paleo", "halal",
        "kosher", "eat meat", "plant-based", "gluten-free", "meat", "veg", "carbs", "sugar-free",
        "restrictions?",
    ),
    "eats": (
        "eats?", "ate", "eating", "foods?", "drinks?", "drinking", "meals?", "cuisine", "cook for",
        "can['’]?t have", "breakfast", "lunch", "coffee", "tea", "alcohol", "booze", "teetotal", "sober",
    ),
    "allergy": (
        "allerg(?:y|ies|ic)", "intoleran(?:t|ce|ces)", "reactions?", "epipen", "sensitive to", "coeliac",
        "celiac", "gluten", "lactose", "nuts", "peanuts?", "shellfish", r"can (?:s?he|they|\w+) have",
    ),
    "speaks": ("languages?", "speaks?", "spoke", "speaking", "fluent", "bilingual", "tongue"),
    "owns": (
        "own(?:s|ed)?", "drives?", "drove", "driving", "cars?", "vehicles?", "motorbike", "bike", "house",
        "flat", "apartment", "possessions?", "bought", "instruments?", "guitar", "piano", "phone", "laptop",
    ),
    "visited": (
        "been to", "visit(?:s|ed)?", "travel(?:s|led|ed)?", "trips?", "countries", "holidays?",
        "vacation(?:s|ed)?", "abroad", "overseas", "went to", "gone to", "ever been", "honeymoon(?:ed)?",
    ),
    "age": (
        "how old", "age", "aged", "years old", "year-old", r"(?:over|under) \d+",
        "twenties|thirties|forties|fifties|sixties|seventies|teens",
    ),
    "birthday": (
        "birthday", "bday", "b-day", "date of birth", "dob", "born on",
        r"when (?:was|were) \w+(?: \w+)? born", "star sign", "zodiac",
    ),
    "birth_year": (
        r"(?:what|which) year (?:was|were|is) \w+(?: \w+)? born", "year .{0,25}born", "born in the",
        "year of birth", "birth year",
    ),
    "name": ("name[sd]?", "called", "full name", "surname", "last name", "first name", "who is", "who['’]s"),
    "nickname": (
        "nick-?names?", "goes by", "go by", "prefers?(?: to be called)?", "preferred",
        "call (?:him|her|them|the user)", "known as", "short for",
    ),
    "plans": (
        "plan(?:s|ning|ned)?", "going to", "intend(?:s|ing)?", "hop(?:es|ing) to", "thinking (?:of|about)",
        "next (?:year|month|week)", "upcoming", "future",
    ),
    "favourite_team": ("(?:footy|football|soccer|rugby|hockey|basketball|baseball|cricket) team",),
    "event": (
        "happen(?:s|ed)?", "life events?", "milestones?", "big things",
        r"(?:break|broke) (?:his|her|their|my) \w+",
    ),
}

# Cues that also mean something else ("date" a day, "into" and "like" mostly grammar, "weekend" a
# time, "phone" a number): alone they count only in one of the question shapes below.
WEAK: dict[str, str] = {
    "partner": "date|seeing|together with|ex",
    "likes": r"into|interests?|interested|favou?rites?|like|music|opinion",
    "name": rf"who is|who{_APOS}s",
    "knows": "know[sn]?",
    "relative": "famil(?:y|ies)",
    "colleague": "team",
    "pet": r"fish|birds?|horses?",
    "owns": "bike|house|flat|apartment|phone",
    "diet": r"meat|veg|restrictions?",
    "hobby": r"weekends?|plays?|playing|still \w+ing|go(?:es)? \w+ing",
    "eats": "tea|coffee|lunch",
    "allergy": r"nuts|peanuts?|shellfish|reactions?",
    "lives_in": r"stay(?:s|ing)?|city|town|country|living",
    "nickname": r"prefers?|preferred",
    "studies": "subject|course",
}
STRONG_SHAPES: dict[str, str] = {
    "likes": (
        rf"\b(?:is|are|{_APOS}s|s?he|they|user)\s+(?:really\s+|so\s+)?into\b|\binto\s*(?:\?|$)"
        rf"|\b(?:do|does|did|would)(?:n{_APOS}?t)?\b.{{0,30}}\blike\b|\blike (?:best|most|to)\b"
        r"|\bkind of music\b|\bmusic tastes?\b"
    ),
    "partner": (rf"\bwho(?:{_APOS}s| is| was)\s+\w+\s+(?:seeing|dating|with)\b"
                rf"|\b(?:her|his|their|my|{_APOS}s) ex\b"),
    "colleague": r"\bteam\b.{0,20}\bwork\b|\bwork\b.{0,20}\bteam\b",
    "hobby": r"\bplays?\b|\bplaying\b|\bgo(?:es)? \w+ing\b",
    "lives_in": (
        r"\bliving (?:in|at|now|these days)\b|\bwhere\b.{0,30}\bliving\b"
        r"|\bstay(?:s|ing)?\b.{0,20}\b(?:now|nowadays|these days)\b"
        r"|\b(?:which|what) (?:city|town|country)\b|\b(?:city|town|country) (?:does|is|do)\b"
    ),
    "nickname": r"\bprefer(?:s|red)?\b.{0,25}\bname\b|\bname\b.{0,25}\bprefer|\bprefers? [A-Z]\w+",
    "owns": r"\b(?:what|which) (?:phone|bike|house|flat)\b",
    "diet": r"\b(?:pure|strict) veg\b|\bdietary restrictions?\b|\beat meat\b",
}

# "favourite film", "favorite TV show", "fave band": the category is the next word or few, up to
# the first function word; "which film does she like best" asks for one without the word.
FAVOURITE = re.compile(r"\b(?:favou?rite|fave|fav|best-loved|top)\s+((?:[a-z]+ ){0,2}[a-z]+)", re.IGNORECASE)
LIKE_BEST = re.compile(
    r"\bwhich ((?:[a-z]+ )?[a-z]+) (?:does|do|did) .{0,30}?\blike (?:best|most)\b", re.IGNORECASE
)
FAVOURITE_SKIP = frozenset({"thing", "things", "one", "ones", "way", "place", "person", "part", "time"})
CATEGORY_END = frozenset(
    """is are was were in of at to and or for these nowadays now right then when that
    this those the a an days ever all by from does do did has have""".split()
)
# One favourite asked under another name: either answers ("favourite movie" and "favourite film").
FAVOURITE_TWINS = (
    ("movie", "film"),
    ("tv_show", "tv_series"),
    ("tv_show", "show"),
    ("tv_show", "series"),
    ("team", "football_team"),
    ("team", "sports_team"),
    ("singer", "artist"),
    ("band", "group"),
)

# Capitalised words that are not people's names: question words, pronouns, days and months.
NOT_NAMES = frozenset(
    """what where when who whom whose which why how is are was were does do did has have had can could
    would will should shall may might the a an and or but if any anyone someone tell list give show find
    i i'm i've my me we our you your he she they his her their him them it its user users user's
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
    mum mom dad ok okay hey hi please remind recall remember also""".split()
)
# "before Denver", "other than Mateo", "instead of coffee": the value named is not the answer.
_ASIDE_CUES = (r"\b(?:before|after|prior to|instead of|other than|besides|apart from|except(?: for)?"
               r"|rather than|previous to|ahead of)\s+")
ASIDE = re.compile(
    _ASIDE_CUES + r"(?:(?:she|he|they|the user|\w+) (?:moved to|went to|started at|joined|had"
    r"|got|was at|lived in|worked at)\s+)?((?:the )?[\w'’-]+(?-i: [A-Z][\w'’-]+)*)",
    re.IGNORECASE,
)
# The words after an aside cue, to the end of its clause: "before she went pescatarian", "before
# the move to Conroe", "instead of coffee these days". The value set aside ends the clause.
ASIDE_CLAUSE = re.compile(
    _ASIDE_CUES + r"([^?.!,;:]+?)(?=\s+(?:and|or|but|when|while|so|because)\b|[?.!,;:]|$)", re.IGNORECASE
)
# A question about the time between two events names both as what it asks: "how many weeks after
# moving to Minneapolis did she get engaged?" sets nothing aside.
INTERVAL = re.compile(
    r"\bhow (?:long|soon|many (?:days|weeks|months|years)|much (?:time|later|earlier))\b", re.IGNORECASE
)
# Words that end a clause without naming a value: the time it is asked about, pronouns.
ASIDE_TRAILING = frozenset(
    """now nowadays currently today lately recently anymore presently these those days day this that then
    time moment point all""".split()
)
ASIDE_NOT_VALUES = frozenset(
    """the a an to in at for of on with from by into her his their its my your our she he they it him them
    me you we us i was were is are be been being had has have did do does got get went go moved move
    started start joined join became become""".split()
)
