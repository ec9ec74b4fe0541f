"""Word lists and cue phrases that :mod:`graphcite.claims.decompose` reads qualifiers from.

The default pipeline is spaCy's blank English (a tokenizer and lookup lemmas, no tagger), so
word classes come from small closed lists and a lexicon of verbs common in engineering writing.
Cue phrases are matched with a spaCy ``PhraseMatcher`` on lower-cased tokens; each phrase carries
one or more labels (``NEG``, ``MOD:must``, ``TIME:past``, ``COND``, ``CONN``, ...). Longer phrases
win over the words inside them, so "must not" is one cue and "no more than" is a bound, not a
negation.
"""

from __future__ import annotations

from functools import lru_cache

from spacy.language import Language
from spacy.matcher import PhraseMatcher

from graphcite.language.cues import negation_phrases

__all__ = [
    "ADJECTIVES",
    "ADVERBS",
    "AUXILIARIES",
    "AUX_BE",
    "AUX_DO",
    "AUX_HAVE",
    "COMPLETION_VERBS",
    "CUE_LABELS",
    "DETERMINERS",
    "MODALS",
    "NOUN_LIKE_VERBS",
    "NUMBER_WORDS",
    "PREPOSITIONS",
    "PRONOUNS",
    "QUANTIFIERS",
    "REPORTING_VERBS",
    "VERBS",
    "cue_matcher",
]

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


AUX_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "'re", "'m"})
AUX_HAVE = frozenset({"has", "have", "had", "'ve"})
AUX_DO = frozenset({"do", "does", "did"})
MODALS = frozenset({"will", "would", "shall", "should", "can", "could", "may", "might", "must", "ca", "wo",
                    "'ll", "ought"})
AUXILIARIES = AUX_BE | AUX_HAVE | AUX_DO | MODALS
PAST_AUXILIARIES = frozenset({"was", "were", "did", "had"})

DETERMINERS = frozenset({
    "the", "a", "an", "this", "these", "those", "each", "every", "all", "some", "any", "no", "our", "its",
    "their", "his", "her", "my", "your", "both", "either", "neither", "another", "other", "such", "many",
    "several", "most", "few", "fewer", "more", "less", "much", "whose", "what", "which",
})
QUANTIFIERS = ("all", "every", "any", "some", "none", "each", "no")
PRONOUNS = frozenset({"it", "they", "we", "i", "you", "he", "she", "this", "that", "there", "one", "someone",
                      "everyone", "nobody", "nothing", "everything", "something", "anyone", "anything"})
PLURAL_PRONOUNS = frozenset({"they", "we", "i", "you"})
PREPOSITIONS = frozenset({
    "of", "in", "on", "at", "by", "for", "with", "without", "from", "to", "into", "onto", "over", "under",
    "about", "between", "through", "during", "per", "via", "across", "against", "among", "behind", "beyond",
    "within", "toward", "towards", "upon", "than", "like", "as", "around", "after", "before", "since",
    "until", "despite",
})
NUMBER_WORDS = frozenset({
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
    "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion",
    "dozen", "half", "once", "twice", "thrice", "zero", "first", "second", "third", "fourth", "fifth",
    "single", "double", "triple",
})
ADJECTIVES = frozenset({
    "new", "old", "automatic", "failed", "first", "second", "last", "next", "previous", "current", "many",
    "other", "same", "different", "long", "short", "high", "low", "slow", "fast", "extra", "manual",
    "uncertain", "known", "local", "remote", "single", "multiple", "several", "few", "idempotent",
    "recent", "frequent", "persistent", "transient", "consistent", "independent", "urgent", "concurrent",
    "dependent", "efficient", "sufficient", "silent", "permanent", "main", "whole", "entire", "full",
    "empty", "open", "closed", "stale", "fresh", "hot", "cold", "large", "small", "big", "default",
    "primary", "secondary", "nightly", "daily", "weekly", "monthly", "early", "late", "final", "initial",
    "original", "public", "private", "internal", "external", "global", "partial", "total", "legacy",
    "critical", "major", "minor", "safe", "unsafe", "duplicate", "broken", "missing", "pending", "active",
    "inactive", "healthy", "unhealthy", "stable", "unstable", "flaky", "expensive", "cheap", "quick",
    "rare", "common", "separate", "standard", "optional", "mandatory", "valid",
    "invalid", "correct", "wrong", "real", "live", "dead", "idle", "busy", "free", "upstream", "downstream",
    "synchronous", "asynchronous", "outbound", "inbound", "incoming", "outgoing", "weak", "strong",
    "exponential", "linear", "fixed", "random", "hard", "soft", "unknown",
})
ADJECTIVE_SUFFIXES = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ic", "ary", "ish")
ADVERBS = frozenset({
    "never", "always", "also", "only", "still", "often", "usually", "sometimes", "rarely", "already", "now",
    "currently", "previously", "formerly", "originally", "initially", "automatically", "immediately",
    "then", "just", "not", "n't", "actually", "typically", "generally", "normally", "silently", "manually",
    "eventually", "again", "even", "really", "probably", "likely", "certainly", "quickly", "simply",
    "briefly", "later", "once", "first", "today", "soon", "ever", "seldom", "twice",
    "nonetheless", "instead", "therefore", "thus", "hence", "so", "consequently", "reportedly", "last",
    "explicitly", "implicitly", "correctly", "successfully", "partially", "fully", "safely", "both",
})
NOT_ADVERBS_LY = frozenset({"apply", "reply", "rely", "supply", "comply", "multiply", "imply", "fly", "ally",
                            "assembly", "family", "anomaly", "rally", "tally", "belly", "july", "italy"})
REPORTING_VERBS = frozenset({"say", "state", "note", "show", "confirm", "mention", "report", "claim", "find",
                             "conclude", "decide", "agree", "explain", "argue", "assume", "expect", "know",
                             "mean", "require", "propose", "suggest", "recommend", "ensure", "indicate",
                             "specify", "document", "describe", "record", "establish", "prove", "demonstrate"})
COMPLETION_VERBS = frozenset({"complete", "finish", "ship", "deploy", "release", "launch", "implement",
                              "land", "merge", "roll", "migrate", "retire", "remove", "deliver", "introduce"})

# Base forms of verbs common in engineering notes. A token is verb-like when its lookup lemma is here
# (plus position checks in decompose.py); nouns that look like verbs are told apart by position.
VERBS = frozenset(["accept", "access", "acknowledge", "add", "adjust", "affect", "aggregate", "alert", "allow", "allocate", "alter", "apply", "approve", "archive", "ask", "assert", "assign", "assume", "attach", "attempt", "audit", "avoid", "back", "backfill", "batch", "become", "begin", "belong", "block", "boot", "break", "bring", "buffer", "build", "bump", "burn", "buy", "cache", "call", "cancel", "cap", "capture", "carry", "catch", "cause", "change", "charge", "check", "choose", "claim", "clean", "clear", "close", "collect", "combine", "come", "commit", "compact", "compare", "compile", "complete", "compress", "compute", "configure", "confirm", "connect", "consider", "consist", "consume", "contain", "continue", "control", "convert", "copy", "correct", "cost", "count", "crash", "create", "cut", "cycle", "debounce", "decide", "declare", "decline", "decrease", "dedupe", "deduplicate", "default", "defer", "define", "delay", "delete", "deliver", "depend", "deploy", "deprecate", "describe", "destroy", "detect", "determine", "differ", "disable", "discard", "discover", "dispatch", "display", "document", "double", "downgrade", "drain", "drop", "dump", "duplicate", "elect", "emit", "enable", "encode", "encrypt", "end", "enforce", "enqueue", "dequeue", "ensure", "enter", "escalate", "estimate", "evaluate", "evict", "exceed", "exclude", "execute", "exist", "exit", "expand", "expect", "expire", "explain", "explore", "export", "expose", "extend", "fail", "fall", "fetch", "fill", "filter", "find", "finish", "fire", "fix", "flag", "flush", "fold", "follow", "force", "fork", "forward", "freeze", "get", "give", "go", "grant", "grow", "guard", "halt", "halve", "handle", "hang", "happen", "hash", "have", "help", "hide", "hit", "hold", "ignore", "implement", "import", "improve", "include", "increase", "index", "indicate", "inform", "ingest", "inherit", "initialize", "inject", "insert", "inspect", "install", "intend", "introduce", "invalidate", "invoke", "isolate", "issue", "join", "keep", "authorize", "authorise", "kill", "land", "last", "launch", "lead", "leak", "leave", "let", "limit", "link", "list", "listen", "load", "lock", "log", "look", "lose", "maintain", "make", "manage", "map", "mark", "match", "mean", "measure", "merge", "migrate", "mirror", "miss", "monitor", "move", "need", "note", "notify", "observe", "obtain", "occur", "offer", "omit", "open", "operate", "order", "outlive", "override", "own", "page", "parse", "pass", "pause", "pay", "perform", "permit", "persist", "pick", "pin", "ping", "place", "plan", "poll", "post", "predict", "prefer", "prepare", "present", "preserve", "prevent", "print", "process", "produce", "promote", "propagate", "propose", "protect", "prove", "provide", "prune", "publish", "pull", "purge", "push", "put", "queue", "raise", "reach", "read", "rebuild", "receive", "reconcile", "record", "recover", "reduce", "refer", "refresh", "refuse", "register", "reject", "release", "rely", "remain", "remove", "rename", "render", "renew", "reopen", "repair", "repeat", "replace", "replay", "replicate", "reply", "report", "request", "require", "rerun", "reserve", "reset", "resolve", "respond", "restart", "restore", "restrict", "resume", "retain", "retire", "retry", "return", "reuse", "revert", "review", "revoke", "rewrite", "roll", "rotate", "route", "run", "save", "scale", "scan", "schedule", "see", "seem", "select", "send", "serve", "set", "ship", "show", "shrink", "shut", "skip", "sleep", "slip", "slow", "sort", "spawn", "speed", "spend", "spike", "split", "stall", "start", "state", "stay", "stop", "store", "stream", "submit", "succeed", "suggest", "supersede", "support", "suppress", "suspend", "swap", "switch", "sync", "take", "target", "tell", "terminate", "test", "throttle", "throw", "tick", "time", "timeout", "track", "trade", "transfer", "transform", "translate", "treat", "trigger", "trim", "truncate", "trust", "try", "turn", "unblock", "unlock", "update", "upgrade", "upload", "use", "validate", "verify", "violate", "wait", "wake", "want", "warn", "watch", "win", "withdraw", "work", "wrap", "write", "yield", "dominate", "outrun", "overrun", "overflow", "underrun", "lag", "shard", "sample", "sign", "tag", "flip", "acquire", "forbid", "prohibit", "rise", "grow", "fall", "drop", "climb", "jump", "shrink", "spike", "recover", "degrade", "settle", "flap", "bounce", "hit", "breach", "affect", "impact", "activate", "deactivate", "adopt", "advance", "aggregate", "allocate", "amend", "announce", "annotate", "answer", "append", "appoint", "approach", "archive", "argue", "arrange", "arrive", "assemble", "assess", "assist", "associate", "attend", "authenticate", "automate", "await", "balance", "base", "benchmark", "bind", "blame", "boost", "bounce", "branch", "broadcast", "browse", "bundle", "bypass", "calculate", "calibrate", "capture", "centralize", "certify", "chain", "chunk", "cite", "clarify", "classify", "clone", "cluster", "coalesce", "code", "collapse", "communicate", "compensate", "complain", "comply", "compose", "concede", "conclude", "conduct", "conflict", "consolidate", "construct", "contact", "contend", "contribute", "convey", "coordinate", "correlate", "crawl", "credit", "criticize", "cross", "crush", "curate", "customize", "damage", "deal", "debug", "decommission", "decouple", "dedicate", "deem", "defend", "delegate", "delimit", "demand", "demonstrate", "denote", "deny", "depart", "deprioritize", "derive", "design", "desire", "destroy", "detach", "develop", "diagnose", "dictate", "digest", "diminish", "direct", "disagree", "disappear", "disclose", "disconnect", "discuss", "dismiss", "display", "dispose", "dispute", "disrupt", "distinguish", "distribute", "divide", "dominate", "download", "draft", "draw", "dream", "drive", "duplicate", "earn", "edit", "eliminate", "embed", "emerge", "emphasize", "employ", "empty", "enable", "encounter", "encourage", "endorse", "engage", "enhance", "enlarge", "enrich", "enroll", "ensure", "entail", "equip", "escape", "establish", "evolve", "examine", "exchange", "exercise", "exhaust", "expand", "experience", "experiment", "explain", "expose", "express", "extract", "facilitate", "feature", "feed", "feel", "fight", "figure", "file", "finalize", "fit", "flip", "float", "flow", "fly", "focus", "forget", "format", "formulate", "foster", "free", "fulfil", "fulfill", "function", "gain", "gate", "gather", "generate", "govern", "grab", "grade", "graduate", "greet", "group", "guarantee", "guess", "guide", "harden", "harm", "head", "hear", "heat", "highlight", "hire", "host", "identify", "illustrate", "imagine", "impose", "improve", "incorporate", "incur", "indicate", "induce", "infer", "influence", "inhibit", "initiate", "innovate", "insist", "inspire", "instantiate", "instruct", "integrate", "intend", "interact", "intercept", "interfere", "interpret", "interrupt", "introduce", "invest", "investigate", "invite", "involve", "iterate", "justify", "kick", "know", "label", "lack", "launch", "layer", "learn", "lease", "lend", "level", "license", "lift", "like", "liken", "live", "locate", "loop", "lower", "maintain", "manufacture", "master", "maximize", "measure", "meet", "mention", "migrate", "minimize", "mitigate", "model", "modify", "mount", "multiply", "mutate", "name", "narrow", "navigate", "negotiate", "nest", "normalize", "number", "nudge", "object", "obey", "obscure", "occupy", "offload", "onboard", "optimize", "orchestrate", "organize", "originate", "outline", "outperform", "output", "overlap", "overlook", "oversee", "overwrite", "package", "paint", "pair", "panic", "parallelize", "park", "participate", "partition", "patch", "pause", "peak", "persist", "phase", "pilot", "plug", "point", "populate", "port", "possess", "postpone", "power", "practice", "precede", "predict", "prefix", "preload", "prepend", "prescribe", "preserve", "pretend", "prevail", "price", "prime", "prioritize", "proceed", "profile", "program", "progress", "prohibit", "project", "prolong", "promise", "prompt", "propagate", "protect", "prototype", "provision", "qualify", "quantify", "query", "question", "quit", "quote", "rank", "rate", "rationalize", "react", "realize", "reason", "reassign", "rebalance", "reboot", "recall", "receive", "recognize", "recommend", "reconfigure", "reconnect", "redeploy", "redesign", "redirect", "redistribute", "refactor", "reference", "reflect", "reformat", "regenerate", "regress", "reindex", "reinforce", "reinstall", "relate", "relay", "relax", "relieve", "relocate", "remind", "remodel", "reorder", "reorganize", "repackage", "repartition", "rephrase", "replicate", "represent", "reproduce", "reread", "rerun", "reschedule", "research", "resemble", "resend", "reside", "resize", "resist", "respect", "restart", "restructure", "resubmit", "retest", "rethink", "retrieve", "reveal", "reverse", "revise", "revisit", "reward", "ride", "ring", "rise", "risk", "rollback", "rule", "sanitize", "satisfy", "scrape", "search", "secure", "seed", "segment", "sell", "separate", "serialize", "settle", "shape", "share", "shift", "shorten", "sign", "signal", "simplify", "simulate", "sit", "slice", "slide", "smooth", "snapshot", "solve", "source", "span", "specify", "spin", "sponsor", "spread", "stabilize", "stack", "stage", "standardize", "stand", "steer", "step", "stick", "stimulate", "strengthen", "stress", "strike", "strip", "structure", "struggle", "study", "style", "subscribe", "substitute", "subtract", "succeed", "suffer", "summarize", "supervise", "supply", "surface", "surpass", "surround", "survive", "suspect", "sustain", "tackle", "tail", "talk", "teach", "tear", "tend", "terminate", "thank", "think", "thread", "threaten", "tighten", "tolerate", "top", "touch", "trace", "train", "transact", "transition", "transmit", "travel", "trip", "troubleshoot", "tune", "tweak", "type", "uncover", "undergo", "underlie", "understand", "undo", "unify", "uninstall", "unite", "unpack", "unregister", "unset", "unsubscribe", "untangle", "unwind", "uphold", "upset", "urge", "utilize", "vacate", "value", "vary", "vend", "version", "view", "visit", "visualize", "vote", "walk", "wander", "warm", "wash", "waste", "wear", "weigh", "welcome", "widen", "wire", "wish", "withstand", "witness", "wonder", "word", "worry", "worsen", "yield", "zip", "zone", "exhaust", "freeze", "slip", "stall", "triage", "spool", "acknowledge", "approve", "notice", "share", "treat", "say", "speak", "promise"])

# verbs whose -s form usually is a plural noun when another verb follows ("retry counts reset")
NOUN_LIKE_VERBS = frozenset(["count", "log", "page", "time", "release", "run", "limit", "cap", "drop", "queue", "process", "record", "report", "request", "update", "change", "result", "return", "test", "build", "check", "lock", "alert", "call", "order", "value", "retry", "timeout", "fix", "patch", "backup", "restart", "delay", "spike", "error", "cost", "step", "need", "plan", "use", "state", "list", "file", "view", "search", "sample", "share", "signal", "stage", "lease", "rate"])

PARTICLES = frozenset({"out", "back", "off", "up", "down", "over", "away"})
PHRASAL = frozenset({"time", "back", "roll", "fall", "give", "shut", "turn", "pick", "clean", "spin",
                     "phase", "wind", "hand", "carry", "break", "level", "scale", "set", "start", "lock"})

# --------------------------------------------------------------------------------------------
# Cue phrases -> labels
# --------------------------------------------------------------------------------------------

CUE_LABELS: dict[str, tuple[str, ...]] = {}


def _add(labels: tuple[str, ...], phrases: str) -> None:
    for phrase in phrases.split("|"):
        phrase = phrase.strip()
        if phrase:
            CUE_LABELS[phrase] = CUE_LABELS.get(phrase, ()) + labels


# negation; NEGX marks phrases that contain a negative word without negating the claim
_add(("NEG",), "not|n't|never|no|none|nobody|nothing|neither|nor|without|nowhere|cannot")
_add(("NEG", "TIME:current"), "no longer|not anymore|any longer")
_add(("NEG",), "fails to|failed to|fail to|failing to|never once")
# implicative verbs ("refused to sign" says the signing did not happen): the list evidence is read with
_add(("NEG",), "|".join(p for p in negation_phrases() if p not in CUE_LABELS))
_add(("NEGX",), "not only|no more than|not more than|no less than|not less than|no later than|"
                "not later than|no earlier than|no fewer than|not just|nothing but|if not|no matter|"
                "no sooner|not until|no doubt|whether or not")
# modality
_add(("MOD:must",), "must|has to|have to|had to|needs to|need to|needed to|is required to|are required to|"
                    "was required to|were required to|shall|is mandatory|are mandatory|is required|are required|"
                    "is obliged to|are obliged to|is expected to|are expected to")
_add(("MOD:must-not", "NEG"), "must not|mustn't|must never|shall not|is not allowed to|are not allowed to|"
                              "is not permitted to|are not permitted to|is not allowed|are not allowed|"
                              "was not allowed to|were not allowed to|is not permitted|are not permitted")
_add(("MOD:must-not",), "is forbidden|are forbidden|is prohibited|are prohibited|was forbidden|"
                        "were forbidden|forbids|forbid|prohibits|prohibit")
_add(("MOD:should",), "should|ought to|is recommended|are recommended|is advised|are advised|"
                      "is encouraged to|are encouraged to")
_add(("MOD:may",), "may|might|could|is allowed to|are allowed to|is permitted to|are permitted to|"
                   "is allowed|are allowed|is permitted|are permitted|is optional|are optional|was allowed to|"
                   "were allowed to")
_add(("MOD:can",), "can|is able to|are able to|was able to|were able to")
_add(("MOD:can", "NEG"), "is unable to|are unable to|was unable to|were unable to|unable to")
_add(("MOD:can", "NEG"), "cannot")
_add(("MOD:considered",), "considered|was considered|were considered|is being considered|"
                          "are being considered|under consideration|discussed|evaluated|explored|debated|"
                          "weighed|looked into|toyed with|floated")
_add(("MOD:proposed",), "proposed|proposes|propose|proposal|suggested|suggests|would|is proposed|"
                        "are proposed|was proposed|were proposed|we propose")
_add(("MOD:planned",), "planned|plans to|plan to|is planned|are planned|intends to|intend to|intended to|"
                       "is scheduled for|are scheduled for|is scheduled to|are scheduled to|aims to|aim to|"
                       "is on the roadmap|are on the roadmap|on the roadmap|is slated for|are slated for|"
                       "is targeted for|are targeted for|is planning to|are planning to|was planning to|were planning to|"
                       "is planning|are planning")
_add(("MOD:completed",), "has been completed|have been completed|was completed|were completed|"
                         "is complete|are complete|is done|are done|is finished|are finished|completed|"
                         "finished|shipped|has shipped|have shipped|was shipped|were shipped|deployed|"
                         "rolled out|launched|landed|merged|implemented")
# time
_add(("TIME:past",), "previously|formerly|originally|initially|used to|back then|at the time|until recently|"
                     "last year|last month|last week|last quarter|last release|earlier|in the past|"
                     "last winter|last spring|last summer|last autumn|last fall|last season|"
                     "in the first prototype|in the first version|in the first release|in the prototype|"
                     "in the original design|in earlier releases|in earlier versions|in the old scheduler|"
                     "in the first draft|in the pilot|during the pilot|ago|at first")
_add(("TIME:current",), "currently|now|today|at present|at the moment|these days|nowadays|still|"
                        "as of|as things stand|from now on|since then")
_add(("TIME:future",), "will|'ll|wo|shall be|is going to|are going to|next release|next version|next quarter|"
                       "next year|next month|next week|next sprint|in the future|soon|eventually|upcoming|"
                       "next winter|next spring|next summer|next autumn|next season|"
                       "later this year|in the next release|in the next version")
# conditions and exceptions
_add(("COND",), "if|only if|even if|unless|when|whenever|once|provided|provided that|as long as|in case|"
                "in case of|except|except for|except when|except if|except that|other than|excluding|until|"
                "while|after|before|on condition that|assuming|given that|in the event of|in the event that")
# connectives
_add(("CONN",), "because|because of|since|so|therefore|thus|hence|consequently|as a result|as a result of|"
                "despite|in spite of|although|though|even though|due to|owing to|which caused|which causes|"
                "which led to|which leads to|which resulted in|which results in|leads to|lead to|led to|"
                "leading to|results in|resulted in|result in|causes|caused|cause|caused by|"
                "more than|less than|fewer than|than|after|before|whereas")
_add(("INFER",), "therefore|thus|hence|we conclude|we conclude that|so we conclude|it follows that|"
                 "which means that|this means that|we infer|we infer that|so we conclude that")
_add(("DEF",), "is defined as|are defined as|refers to|refer to|means|is called|are called|is known as|"
               "are known as|by definition")


@lru_cache(maxsize=4)
def _matcher_for(vocab_id: int, nlp: Language) -> PhraseMatcher:
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    for phrase in CUE_LABELS:
        matcher.add(phrase, [nlp.make_doc(phrase)])
    return matcher


def cue_matcher(nlp: Language) -> PhraseMatcher:
    """The PhraseMatcher over all cue phrases for this pipeline's vocabulary (built once)."""
    return _matcher_for(id(nlp.vocab), nlp)
