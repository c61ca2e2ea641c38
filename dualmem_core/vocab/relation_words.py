"""The people and animals facts are about: relation nouns, pet nouns, and words that are no names.

Shared vocabulary: the rule extractor reads "my sister Lena" by these nouns, recall lists them as
the words a fact of a predicate is stated in (``statement_words.py``), and the Editor links
"Lena" to "user's sister" by them (``editor/mention_links.py``, ``editor/restated.py``). They live
here so that recall and the Editor need no part of the rule extractor.
"""

from __future__ import annotations

import re

# Relationship nouns -> predicate. Plurals are handled by the rules ("sisters", "kids").
RELATIONS: dict[str, str] = {
    "wife": "spouse", "husband": "spouse", "spouse": "spouse", "hubby": "spouse",
    "partner": "partner", "girlfriend": "partner", "boyfriend": "partner", "fiance": "partner",
    "fiancé": "partner", "fiancee": "partner", "fiancée": "partner", "significant other": "partner",
    "gf": "partner", "bf": "partner", "other half": "partner", "better half": "partner",
    "fella": "partner", "missus": "spouse", "missis": "spouse", "wifey": "spouse",
    "sister": "sibling", "brother": "sibling", "sibling": "sibling", "twin": "sibling", "sis": "sibling",
    "stepsister": "sibling", "stepbrother": "sibling", "half-sister": "sibling", "half-brother": "sibling",
    "mom": "parent", "mum": "parent", "mother": "parent", "mommy": "parent", "mama": "parent",
    "dad": "parent",
    "father": "parent", "daddy": "parent", "papa": "parent", "stepmom": "parent", "stepdad": "parent",
    "stepmother": "parent", "stepfather": "parent", "parent": "parent", "mam": "parent", "mammy": "parent",
    "stepmum": "parent", "pop": "parent", "pops": "parent",
    "son": "child", "daughter": "child", "kid": "child", "child": "child", "baby": "child",
    "stepson": "child", "stepdaughter": "child", "eldest": "child", "youngest": "child",
    "oldest": "child", "middle child": "child",
    "little one": "child", "wee one": "child", "kiddo": "child",
    "toddler": "child", "boy": "child", "girl": "child",
    "grandparent": "relative", "grandma": "relative", "grandmother": "relative", "grandpa": "relative",
    "grandfather": "relative",
    "granny": "relative", "nana": "relative", "nan": "relative", "nanna": "relative", "gran": "relative",
    "grandad": "relative", "granddad": "relative", "grandmom": "relative", "grandmum": "relative",
    "auntie": "relative", "aunty": "relative", "grandson": "relative", "granddaughter": "relative",
    "grandchild": "relative", "grandkid": "relative", "aunt": "relative", "uncle": "relative",
    "cousin": "relative", "niece": "relative", "nephew": "relative", "mother-in-law": "relative",
    "father-in-law": "relative", "sister-in-law": "relative", "brother-in-law": "relative",
    "son-in-law": "relative", "daughter-in-law": "relative",
    "friend": "friend", "best friend": "friend", "buddy": "friend", "pal": "friend", "bestie": "friend",
    "bff": "friend", "childhood friend": "friend", "mate": "friend", "best mate": "friend",
    "family": "relative", "folks": "parent", "in-laws": "relative",
    "coworker": "colleague", "co-worker": "colleague", "colleague": "colleague", "boss": "colleague",
    "manager": "colleague", "teammate": "colleague", "supervisor": "colleague", "cofounder": "colleague",
    "co-founder": "colleague", "business partner": "colleague", "mentor": "colleague",
    "roommate": "knows", "flatmate": "knows", "housemate": "knows", "neighbor": "knows", "neighbour": "knows",
    "classmate": "knows", "landlord": "knows", "therapist": "knows", "doctor": "knows", "ex": "partner",
    "advisor": "knows", "adviser": "knows", "landlady": "knows", "tutor": "knows",
    # Kin words bilingual speakers keep from home ("my mãe Cláudia", "my abuela", "my bhai")
    "mamá": "parent", "papá": "parent", "madre": "parent", "padre": "parent", "mãe": "parent",
    "pai": "parent", "maman": "parent", "mère": "parent", "père": "parent", "mutti": "parent",
    "vati": "parent", "ammi": "parent", "abbu": "parent", "amma": "parent", "appa": "parent",
    "mummy": "parent",
    "hermano": "sibling", "hermana": "sibling", "irmão": "sibling", "irmã": "sibling", "frère": "sibling",
    "sœur": "sibling", "bhai": "sibling", "bhaiya": "sibling", "didi": "sibling", "behen": "sibling",
    "abuela": "relative", "abuelo": "relative", "avó": "relative", "avô": "relative", "oma": "relative",
    "opa": "relative", "nonna": "relative", "nonno": "relative", "dadi": "relative", "nani": "relative",
    "tía": "relative", "tío": "relative", "tia": "relative", "tio": "relative", "primo": "relative",
    "prima": "relative",
    "esposo": "spouse", "esposa": "spouse", "marido": "spouse",
    "novio": "partner", "novia": "partner", "namorado": "partner", "namorada": "partner",
    "copain": "partner", "copine": "partner",
    "hijo": "child", "hija": "child", "filho": "child", "filha": "child", "beta": "child", "beti": "child",
}  # fmt: skip
_IRREGULAR_PLURALS = {
    "children": "child",
    "kids": "kid",
    "babies": "baby",
    "wives": "wife",
    "parents": "parent",
}

PETS = (
    "pet", "dog", "cat", "puppy", "pup", "kitten", "kitty", "rabbit", "bunny", "hamster", "guinea pig",
    "parrot",
    "bird", "budgie", "parakeet", "cockatiel", "fish", "goldfish", "turtle", "tortoise", "snake", "lizard",
    "gecko", "iguana", "horse", "pony", "ferret", "rat", "mouse", "chinchilla", "hedgehog", "pig", "goat",
    "chicken", "labrador", "lab", "retriever", "golden retriever", "beagle", "poodle", "bulldog", "corgi",
    "husky", "dachshund", "terrier", "chihuahua", "pug", "german shepherd", "shepherd", "collie",
    "border collie", "spaniel", "doodle", "goldendoodle", "labradoodle", "shih tzu", "greyhound",
    "rottweiler", "pit bull", "pitbull", "schnauzer", "sheepdog", "malamute", "tabby", "maine coon",
    "ragdoll", "siamese cat", "persian cat", "mutt", "rescue dog", "rescue cat", "staffy", "staffie",
    "westie", "cockapoo", "cavapoo", "cavoodle", "springer", "springer spaniel", "jack russell",
    "whippet", "lurcher",
    "dalmatian", "shiba", "shiba inu", "samoyed", "vizsla", "weimaraner", "pomeranian", "moggy", "moggie",
    "cockatoo", "axolotl", "kelpie", "heeler", "blue heeler", "sprocker", "bichon", "frenchie",
    "french bulldog", "sausage dog", "bearded dragon", "tortoiseshell", "ginger cat", "black cat",
    "catahoula", "border terrier", "yorkshire terrier", "boston terrier", "bull terrier", "cairn terrier",
    "scottie", "australian shepherd", "aussie", "mastiff", "great dane", "doberman", "cane corso",
    "bernese", "sheltie", "yorkie", "maltese", "havanese", "basset hound", "bloodhound", "coonhound",
    "hound", "akita", "bengal", "sphynx", "calico", "tuxedo cat", "cockerpoo", "bernedoodle", "shih poo",
    "lovebird", "canary", "hermit crab", "tarantula", "alpaca", "donkey", "duck",
)  # fmt: skip

# A capitalized word at a clause start is not a name when it is one of these.
NOT_NAMES = frozenset(
    """
the this that these those it its there here what when where why how who which yes no yeah yep nope
ok okay well so and but or also then now today tonight yesterday tomorrow last next every some most
all both everyone everybody someone somebody nobody people life work thanks thank sorry please hi
hello hey just actually honestly maybe perhaps lol haha oh wow cool great nice sure anyway btw plus
my our your his her their he she they we i you me us them mine ours a an in on at for from with to of
as by if unless when while after before since because though although not never again still even
only really very too quite good bad happy sad glad fine dear guess anyhow besides otherwise luckily
sadly unfortunately fortunately apparently basically seriously literally obviously hopefully
monday tuesday wednesday thursday friday saturday sunday january february march april may june july
august september october november december christmas easter thanksgiving halloween
met saw had went got made took spent caught ran bumped told asked called texted messaged heard
""".split()
)


def relation_of(noun: str) -> str | None:
    """The predicate for a relationship noun, singular or plural ('sisters' -> 'sibling')."""
    word = noun.lower().strip()
    word = _IRREGULAR_PLURALS.get(word, word)
    if word in RELATIONS:
        return RELATIONS[word]
    if word.endswith("s") and word[:-1] in RELATIONS:
        return RELATIONS[word[:-1]]
    return None


def is_plural_relation(noun: str) -> bool:
    """'sisters', 'kids', 'parents' but not 'boss' or 'missus'."""
    word = noun.lower().strip()
    return word in _IRREGULAR_PLURALS or (word not in RELATIONS and relation_of(word) is not None)


def relation_pattern() -> str:
    """Regex alternation of relationship nouns, longest first, with optional plural."""
    names = sorted([*RELATIONS, *_IRREGULAR_PLURALS], key=len, reverse=True)
    return r"(?:" + "|".join(re.escape(n) for n in names) + r")s?"
