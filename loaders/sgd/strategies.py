"""Valid SGD source files, generated: ``schema.json`` and ``dialogues_NNN.json`` of
``train/``, ``dev/`` and ``test/`` in the upstream layout, by default with one SGD-X variant's
schemas (``sgd_x/data/<variant>/<folder>/schema.json``).

Valid means what ``loaders/sgd/format.py`` declares, plus what the upstream README says the
records mean: every service a dialogue names is in its split's schema, a frame's service is
one of its dialogue's services, user frames carry the state of their service (values carried
forward), a span indexes its value in the utterance, acts are those of their speaker, values
and canonical values pair up, intents name slots of their service, a service call calls an
intent of its service (at most one call and one list of results a turn). Names and values
are adversarial (``unified_dialogue.testing.strategies.text``): keywords and separators of
the text forms, quotes, backslashes, line breaks, spaces at either end, non-ASCII, long
values, names differing only in case; values may be empty. Services may have no slot, turns
one or two frames, dialogues one turn, and either side may speak first or twice in a row.

Names SGD's own format cannot tell apart are never drawn: an intent named ``NONE`` (the
active intent when there is none) and an empty slot name (an act without a slot).

    from hypothesis import given
    from loaders.sgd import strategies

    @given(strategies.corpora())
    def test_it_loads(tmp_path_factory, corpus):
        load("sgd", "dst", **corpus.load_kwargs(tmp_path_factory.mktemp("sgd")))

Needs ``hypothesis``, a test dependency (``unified_dialogue.testing.strategies`` says what a
corpus's strategies define, and holds the pieces shared with the other corpora's).
"""

from hypothesis import strategies as st

from unified_dialogue.core.features import NO_INTENT
from unified_dialogue.testing.strategies.files import SourceFiles, decoded
from unified_dialogue.testing.strategies.text import BOOLEANS, distinct_names, fillers, values
from unified_dialogue.views.d3st_text import DONTCARE

from . import format
from .sgdx import FOLDERS, INTENT_SLOT, VARIANTS

# A copy builds each of SGD's many configs: fewer copies than of the smaller corpora.
BUILD_SHARE = 0.2

COUNT_SLOT = "count"
USER_PLAIN_ACTS = ("AFFIRM", "NEGATE", "SELECT", "REQUEST_ALTS", "THANK_YOU", "GOODBYE", "AFFIRM_INTENT",
                   "NEGATE_INTENT")
SYSTEM_PLAIN_ACTS = ("NOTIFY_SUCCESS", "NOTIFY_FAILURE", "REQ_MORE", "GOODBYE")


# ---------------------------------------------------------------- schemas

@st.composite
def service(draw, name, max_slots=3, max_intents=2):
    """One service of ``name``: slots (maybe none; categorical ones with possible values),
    intents naming its slots."""
    slot_names = draw(distinct_names(0, max_slots))
    slots = []
    for slot in slot_names:
        categorical = draw(BOOLEANS)
        slots.append({
            "name": slot,
            "description": draw(values()),
            "is_categorical": categorical,
            "possible_values": draw(st.lists(values(), max_size=3, unique=True)) if categorical else [],
        })
    intents = []
    for intent in draw(distinct_names(1, max_intents, avoid=(NO_INTENT,))):
        required = draw(st.lists(st.sampled_from(slot_names), unique=True)) if slot_names else []
        rest = [s for s in slot_names if s not in required]
        optional = draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
        intents.append({
            "name": intent,
            "description": draw(values()),
            "is_transactional": draw(BOOLEANS),
            "required_slots": required,
            "optional_slots": {slot: draw(st.one_of(st.just(DONTCARE), values())) for slot in optional},
            "result_slots": draw(st.lists(st.sampled_from(slot_names), unique=True)) if slot_names else [],
        })
    return {"service_name": name, "description": draw(values()), "slots": slots, "intents": intents}


@st.composite
def service_pool(draw, max_services=3):
    """The services of the whole corpus (each split's schema takes some of them)."""
    return [draw(service(name)) for name in draw(distinct_names(1, max_services))]


@st.composite
def variant_of(draw, pool):
    """An SGD-X variant of ``pool``: every service, slot and intent renamed and described
    anew, slots and intents in the same order with the same values and slot lists."""
    service_names = draw(distinct_names(len(pool), len(pool)).filter(lambda n: len(n) == len(pool)))
    renamed = []
    for original, name in zip(pool, service_names):
        slots = draw(distinct_names(len(original["slots"]), len(original["slots"]))
                     .filter(lambda n: len(n) == len(original["slots"])))
        intents = draw(distinct_names(len(original["intents"]), len(original["intents"]), avoid=(NO_INTENT,))
                       .filter(lambda n: len(n) == len(original["intents"])))
        slot_map = {s["name"]: new for s, new in zip(original["slots"], slots)}
        renamed.append({
            "service_name": name,
            "description": draw(values()),
            "slots": [{**s, "name": slot_map[s["name"]], "description": draw(values())} for s in original["slots"]],
            "intents": [{
                **i, "name": new, "description": draw(values()),
                "required_slots": [slot_map[s] for s in i["required_slots"]],
                "optional_slots": {slot_map[s]: default for s, default in i["optional_slots"].items()},
                "result_slots": [slot_map[s] for s in i["result_slots"]],
            } for i, new in zip(original["intents"], intents)],
        })
    return renamed


# ---------------------------------------------------------------- one turn

class Utterance:
    """An utterance written piece by piece: filler text, and values whose spans are kept."""

    def __init__(self):
        self.parts, self.length = [], 0

    def add(self, text):
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start, self.length

    @property
    def text(self):
        return "".join(self.parts)


def spoken(draw, slot):
    """A value of a schema slot as a user or system says it: a possible value of a
    categorical slot (or dontcare), any value of another; and its canonical value."""
    if slot["is_categorical"]:
        value = draw(st.sampled_from(slot["possible_values"] + [DONTCARE]))
        return value, value
    value = draw(st.one_of(values(), st.just(DONTCARE)))
    return value, draw(st.one_of(st.just(value), values()))


def mention(draw, utterance, frame, slot, value):
    """Say ``value`` in the utterance; a value of a non-categorical slot gets its span."""
    utterance.add(draw(fillers()))
    start, end = utterance.add(value)
    if not slot["is_categorical"] and value != DONTCARE:
        frame["slots"].append({"slot": slot["name"], "start": start, "exclusive_end": end})


def action(act, slot="", values_=(), canonical=None):
    values_ = list(values_)
    return {"act": act, "slot": slot, "values": values_, "canonical_values": list(values_ if canonical is None
                                                                                  else canonical)}


def user_frame(draw, schema, state, utterance):
    """A user frame of ``schema``'s service; ``state`` (the service's state so far, changed
    in place) gains the values the user gives."""
    frame = {"service": schema["service_name"], "slots": [], "actions": []}
    intent = draw(st.sampled_from([i["name"] for i in schema["intents"]] + [state["active_intent"]]))
    if intent != state["active_intent"]:
        frame["actions"].append(action("INFORM_INTENT", INTENT_SLOT, [intent]))
        utterance.add(draw(fillers()) + intent)
        state["active_intent"] = intent
    slots = schema["slots"]
    informed = draw(st.lists(st.sampled_from(slots), max_size=2, unique_by=lambda s: s["name"])) if slots else []
    for slot in informed:
        variants = []
        for _ in range(draw(st.integers(1, 2))):
            value, canonical = spoken(draw, slot)
            if value in variants:
                continue
            variants.append(value)
            mention(draw, utterance, frame, slot, value)
            frame["actions"].append(action("INFORM", slot["name"], [value], [canonical]))
        state["slot_values"][slot["name"]] = variants
    requested = draw(st.lists(st.sampled_from([s["name"] for s in slots]), max_size=2, unique=True)) if slots else []
    frame["actions"].extend(action("REQUEST", slot) for slot in requested)
    frame["actions"].extend(action(act) for act in draw(st.lists(st.sampled_from(USER_PLAIN_ACTS), max_size=1)))
    frame["state"] = {"active_intent": state["active_intent"], "requested_slots": requested,
                      "slot_values": {slot: list(v) for slot, v in state["slot_values"].items()}}
    return frame


def system_frame(draw, schema, utterance, may_call, must_call=False):
    """A system frame: acts about the service's slots and intents, and, where ``may_call``,
    maybe a service call with its results (``must_call``: surely)."""
    frame = {"service": schema["service_name"], "slots": [], "actions": []}
    slots, intents = schema["slots"], [i["name"] for i in schema["intents"]]
    for slot in draw(st.lists(st.sampled_from(slots), max_size=2)) if slots else []:
        act = draw(st.sampled_from(("INFORM", "CONFIRM", "OFFER", "REQUEST")))
        if act == "REQUEST" and draw(BOOLEANS):
            frame["actions"].append(action(act, slot["name"]))
            continue
        value, canonical = spoken(draw, slot)
        mention(draw, utterance, frame, slot, value)
        frame["actions"].append(action(act, slot["name"], [value], [canonical]))
    if draw(BOOLEANS):
        count = str(draw(st.integers(0, 20)))
        utterance.add(draw(fillers()) + count)
        frame["actions"].append(action("INFORM_COUNT", COUNT_SLOT, [count]))
    if draw(BOOLEANS):
        frame["actions"].append(action("OFFER_INTENT", INTENT_SLOT, [draw(st.sampled_from(intents))]))
    frame["actions"].extend(action(act) for act in draw(st.lists(st.sampled_from(SYSTEM_PLAIN_ACTS), max_size=1)))
    if must_call or (may_call and draw(BOOLEANS)):
        frame["service_call"] = {"method": draw(st.sampled_from(intents)),
                                 "parameters": draw(slot_values(slots))}
        frame["service_results"] = draw(st.lists(slot_values(slots), max_size=2))
    return frame


@st.composite
def slot_values(draw, slots):
    """``{slot: value}`` of some of ``slots``, values as the schema spells them."""
    chosen = draw(st.lists(st.sampled_from(slots), max_size=3, unique_by=lambda s: s["name"])) if slots else []
    return {slot["name"]: spoken(draw, slot)[1] for slot in chosen}


# ---------------------------------------------------------------- dialogues

def turn(draw, speaker, services, by_name, states, force_call=False):
    """One turn of one or two frames of ``services``; ``states``: each service's state so
    far (user turns change it); ``force_call``: a system turn's first frame calls its service."""
    utterance, frames, may_call = Utterance(), [], True
    for name in draw(st.lists(st.sampled_from(services), min_size=1, max_size=2, unique=True)):
        if speaker == "USER":
            frames.append(user_frame(draw, by_name[name], states[name], utterance))
        else:
            frames.append(system_frame(draw, by_name[name], utterance, may_call, force_call and not frames))
            may_call = may_call and "service_call" not in frames[-1]
    utterance.add(draw(fillers()))
    return {"speaker": speaker, "utterance": utterance.text, "frames": frames}


@st.composite
def dialogue(draw, schemas, dialogue_id, max_turns=4, complete=False):
    """A dialogue over one or two services of ``schemas`` (a split's schema), either side
    first, one to ``max_turns`` turns of one or two frames. ``complete``: it has a user turn
    and a system turn with a service call (turns added at the end where it lacks them), so
    that every view has a row of it."""
    by_name = {s["service_name"]: s for s in schemas}
    services = draw(st.lists(st.sampled_from(list(by_name)), min_size=1, max_size=2, unique=True))
    states = {name: {"active_intent": NO_INTENT, "slot_values": {}} for name in services}
    turns = [turn(draw, draw(st.sampled_from(("USER", "SYSTEM"))), services, by_name, states)
             for _ in range(draw(st.integers(1, max_turns)))]
    if complete and not any(t["speaker"] == "USER" for t in turns):
        turns.append(turn(draw, "USER", services, by_name, states))
    if complete and not any("service_call" in f for t in turns for f in t["frames"]):
        turns.append(turn(draw, "SYSTEM", services, by_name, states, force_call=True))
    return {"dialogue_id": dialogue_id, "services": services, "turns": turns}


@st.composite
def folder_files(draw, folder, schemas, max_files=2, max_dialogues=2, complete=True):
    """``{relpath: dialogues}`` of a split folder: one to ``max_files`` files of one to
    ``max_dialogues`` dialogues, ids unique in the folder (and adversarial); ``complete``:
    the first dialogue is (``dialogue``), so that every view has rows in the split."""
    counts = draw(st.lists(st.integers(1, max_dialogues), min_size=1, max_size=max_files))
    ids = draw(st.lists(st.one_of(values(), st.integers(0, 99).map(lambda n: f"1_{n:05d}")),
                        min_size=sum(counts), max_size=sum(counts), unique=True))
    files, used = {}, 0
    for number, count in enumerate(counts, start=1):
        files[f"{folder}/dialogues_{number:03d}.json"] = [
            draw(dialogue(schemas, i, complete=complete and used + k == 0))
            for k, i in enumerate(ids[used:used + count])]
        used += count
    return files


def subset(draw, pool):
    """Some of ``pool``'s services, in the pool's order."""
    keep = draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool)))
    chosen = [s for s, k in zip(pool, keep) if k]
    return chosen or pool[:1]


@st.composite
def corpora(draw, variant=True, max_services=3, complete=True):
    """A whole SGD copy (``SourceFiles``): each of train/, dev/ and test/ with a schema of
    some of the corpus's services (so dev and test may have unseen ones) and dialogues.
    ``variant``: True (the default) to add one SGD-X variant's schemas (drawn), a name to
    add that one's, None for none; the copy's ``options`` then hold it. ``complete``: each
    split has a row of every view (else a config may have a split without rows, which the
    loader refuses)."""
    pool = draw(service_pool(max_services))
    files, kept = {}, {}
    for folder in FOLDERS:
        kept[folder] = subset(draw, pool)
        files[f"{folder}/schema.json"] = kept[folder]
        files.update(draw(folder_files(folder, kept[folder], complete=complete)))
    options = {}
    if variant:
        name = draw(st.sampled_from(VARIANTS)) if variant is True else variant
        renamed = dict(zip((s["service_name"] for s in pool), draw(variant_of(pool))))
        for folder in FOLDERS:
            files[f"sgd_x/data/{name}/{folder}/schema.json"] = [renamed[s["service_name"]] for s in kept[folder]]
        options["variant"] = name
    return SourceFiles(files, options, ensure_ascii=draw(BOOLEANS))


def check_files(copy):
    """Assert that a drawn copy is valid: its files decode as SGD's format and pass its
    checks, service names are unique in each schema, and dialogues name services of their
    split's schema."""
    for relpath, value in copy.files.items():
        if relpath.endswith("schema.json"):
            services = decoded(value, format.Service)
            assert len({s.service_name for s in services}) == len(services), relpath
        else:
            dialogues = decoded(value, format.Dialogue, format.check_dialogue)
            schema = {s["service_name"] for s in copy.files[relpath.split("/")[0] + "/schema.json"]}
            assert all(set(d.services) <= schema for d in dialogues), relpath
