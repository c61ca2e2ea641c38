"""The Editor's thresholds, in one place, with why each has its value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EditorConfig:
    # Deduplicate. Candidates are each new memory's nearest live neighbours.
    neighbours: int = 8  # how many neighbours of a new memory are compared with it
    candidate_cosine: float = 0.70  # below this two memories are not even compared
    near_cosine: float = 0.90  # near-exact: embeds almost identically ...
    near_overlap: float = 0.75  # ... and shares most content words (Jaccard)
    paraphrase_overlap: float = 0.5  # a paraphrase shares at least half its content words
    grey_cosine: float = 0.80  # close but unproven: asked of the LLM when there is one

    # Supersede, updates in the user's own words (``replaced.py``): a later message with a word
    # of change and no proof in shared words or facts, embedding at least this close to an
    # earlier one, goes to the LLM when there is one (and otherwise both stay).
    update_grey_cosine: float = 0.50
    # When both messages were read as facts of one single-valued slot (a move told in full
    # sentences), the fact chain carries the change. On, the earlier message is superseded by
    # the later one too, inside the fact's decision; off by default: it changed nothing on the
    # evaluation's tune part, and one move stays one supersession (edge) for whoever counts them.
    messages_follow_facts: bool = False
    # The slot reader (``told_anew.py``): a new message it reads, at this chance or more, as
    # telling a single-valued slot of the speaker ends the user's older fact of that slot whose
    # value it does not restate (and, read as ``+ends``, their partner). The chance is chosen
    # on the evaluation's tune part (docs/editor.md).
    reader_supersede: bool = True
    reader_chance: float = 0.8

    # Resolve entities: names sharing this much of their letter trigrams (a typo, a spacing)
    # look alike and go to the grey band; they never merge on spelling alone.
    name_similarity: float = 0.6

    # Mine relations: an entity mentioned by more memories than this is a hub and is skipped.
    hub_degree: int = 50
    co_mentions: int = 2  # unstructured co-mentions needed before a "mentioned_with" edge

    # Session summaries (``summaries.py``): a session of at least this many turns gets one, of up
    # to this many turns or characters (a few turns carry a conversation's topics; more and the
    # summary is the session again, winning every search by length). A session no longer than a
    # summary would be its own summary: on the fixture (after the Editor, tune) summaries of
    # 3-5 turn sessions cost strict recall@5 0.788 -> 0.782 (hashing), recall@5 0.844 -> 0.835 (MiniLM).
    # Off by default: on LoCoMo they moved R@10 by +0.1 / -0.3 points (conversations 0-4 / 5-9)
    # and cost the fixture up to two held-out questions after the Editor (docs/editor.md); the
    # stage, its rollback and its LLM path are in place for a method that earns its place.
    summaries: bool = False
    summary_min_turns: int = 6
    summary_turns: int = 5
    summary_chars: int = 600

    # Intentions (``intentions.py``): the user's plans as ``intention`` memories with a due time and
    # a state, for ``Writer.upcoming``. Off by default: each plan adds a memory carrying its message's
    # text that recall can also find, and that was not yet measured on the fixture.
    intentions: bool = False
    # A message becomes an intention only at this chance of being a plan; the reader's own threshold
    # (0.26, best micro-F1 over its three labels) read 36 of the fixture's 386 tune messages as
    # plans, about half of 12 sampled not plans by eye, and an intention is a reminder unasked for.
    # At 0.5: 9 of 386, and 5-fold on the written messages plan precision 0.80 -> 0.89, recall
    # 0.93 -> 0.85 (one-off). A done/dropped message keeps the reader's threshold: it must also be
    # alike an open plan to close it.
    intention_chance: float = 0.5

    # Recurring topics (``topics.py``): turns clustered across sessions into ``topic`` memories that
    # recall goes through to their turns. A turn joins a topic at this mean of embedding and tf-idf
    # cosine (chosen on LoCoMo conversations 0-4, hashing embedder; docs/layers.md); a cluster is kept
    # once it has this many turns in this many sessions (a topic is what the user comes back to).
    topics: bool = False
    topic_similarity: float = 0.10
    topic_min_turns: int = 3
    topic_min_sessions: int = 2
    topic_words: float = 0.5  # weight of the tf-idf cosine against the embedding's
    topic_max_share: float = 0.05  # a word in more of the user's turns than this share weighs nothing
    topic_max_free: int = 3000  # turns no topic holds that one run clusters (the latest): n^2 likenesses

    # Score: a change smaller than this is not worth a new version (keeps reruns a fixpoint).
    min_score_change: float = 0.05

    # Publish: a guard against a runaway run. A first run over 100k memories needs ~460k
    # operations (one review mark per memory among them); Neo4j holds a transaction in heap.
    max_operations: int = 2_000_000
