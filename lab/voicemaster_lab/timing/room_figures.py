"""`voicemaster bench room`'s arithmetic, pure: what each listening of a game came to, and the figures per room and
language.

A listening is one `listen` of the game's log with what came of it: the player's utterance if it could be in what
the game decided on (one the game decided without is taken back before it begins, and the player answers the next
prompt instead), the decision, whether the game logged a barge-in, and how the ear says the utterance ended. Its
outcome:
- the player spoke: understood (what it meant, or what the game takes alike), asked again, not heard (the game
  heard silence), or taken for something else: an answer (an answer, yes, no, a name) or a command (anything that
  acts: a joker, walking away, repeat, pause ...);
- the player had not spoken: nothing (silence), or heard without the player: the quizmaster's own voice or the
  room's noise taken for an utterance, asked again or, worse, taken for a meaning.
Barge-ins: a listening where the player began while the quizmaster's line still played is a barge-in tried; heard
if the game logged one, missed if not. A barge-in logged in any other listening is false: the quizmaster stopped
for its own voice or for noise before the player said anything.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from voicemaster_lab.timing.live_figures import percentiles_ms

ANSWERS = frozenset({"answer", "yes", "no", "name", "placement"})
"""Meanings that answer what was asked; everything else heard is a command, which acts."""
VOICES = {"real": "people", "pico": "Pico", "kokoro": "Kokoro"}
"""How the report names each source of the player's utterances."""
OUTCOMES = (
    "understood",
    "asked_again",
    "not_heard",
    "wrong_answer",
    "wrong_command",
    "without_player_asked_again",
    "without_player_taken",
    "nothing",
)


@dataclass(frozen=True)
class Listening:
    context: str
    kind: str | None
    """What the player meant to say (`harness.player.Reply.kind`); None: it said nothing here."""
    meant: tuple[str, str | None] | None
    heard: tuple[str, str | None] | None
    """What the game decided; None: silence (or the game ended first)."""
    spoke: bool
    """The player's utterance could be in what the game decided on: it had begun long enough before (a decision
    sooner was about what the microphone heard before it: not the player's)."""
    alike: tuple[tuple[str, str | None], ...] = ()
    source: str = ""
    text: str = ""
    barge_planned: bool = False
    spoken_over: bool = False
    """The quizmaster's voice was playing where the player's speech began."""
    barged_in: bool = False
    """The game logged a barge-in at this listening."""
    ended: str | None = None
    """How the ear says listening ended (`Endpoint`'s values: ended, ended early, cut, silence); None: unknown."""
    latency: float | None = None
    """Seconds from the end of the player's speech to the first sound of the quizmaster's reply."""
    microphone: str = "room"
    """What the game heard the player through: "room", or "phone" (a phone at the player's mouth, joined)."""
    read: str = ""
    """The words the game read where it decided (its log's `heard` text): why a listening was asked again."""

    @property
    def outcome(self) -> str:
        heard = self.heard
        if not self.spoke:
            if heard is None:
                return "nothing"
            return "without_player_asked_again" if heard[0] == "unknown" else "without_player_taken"
        if heard is None:
            return "not_heard"
        if heard[0] == "unknown":
            return "asked_again"
        if heard == self.meant or heard in self.alike:
            return "understood"
        return "wrong_answer" if heard[0] in ANSWERS else "wrong_command"

    @property
    def barge_in(self) -> str | None:
        """ "heard" or "missed" where the player spoke over the quizmaster, "false" where the quizmaster stopped
        without that; None: no barge-in at stake."""
        if self.spoke and self.spoken_over:
            return "heard" if self.barged_in else "missed"
        return "false" if self.barged_in else None


@dataclass(frozen=True)
class Game:
    """One whole game in one room and language."""

    room: str
    language: str
    echo_db: float | None
    listenings: tuple[Listening, ...]
    ended: bool
    """The game reached its end (game over) within the bench's limits."""
    locked_without_yes: int
    """Answers locked where the decision just before was not the player's yes to "final answer?"."""
    seconds: float
    echo_delays: tuple[float, ...] = ()
    """The echo's delay as heard on the bus, sampled through the game (seconds)."""
    dropouts: float = 0.0
    """Seconds the mixer's stream was not heard (the microphone silent)."""
    cut: int = 0
    """Utterances the endpointer never ended: cut at the longest utterance."""
    stopped: str = ""
    """Why the bench stopped the game, if it did."""
    frontend: str = "webrtc-aec"
    """What the game heard through (`timing.room.FRONT_ENDS`)."""
    sounding_frames: int = 0
    """Microphone frames heard while our voice played (the pipeline's front-end stage, in the game's log)."""
    judged_frames: int = 0
    """Of those, the frames the barge-in filter judged (it had found the echo's delay and learnt the coupling)."""
    microphone: str = "room"
    """The player's microphone in this game (`timing.room.MICROPHONES`): the room's, or a phone at the mouth besides."""
    phone_behind: float = 0.0
    """The most seconds of the phone's sound that waited in the bench to be sent (`harness.phone.PhoneLink`)."""


def locked_without_yes(events: Sequence[dict[str, Any]], player_said_yes: Iterable[int]) -> int:
    """Locks not right after a yes to "final answer?" that the player said: each lock's last decision before it
    must be a confirm heard as yes, and its index in `player_said_yes` (the decisions the player spoke to)."""
    spoken = set(player_said_yes)
    count = 0
    for index, event in enumerate(events):
        if event["event"] != "locked":
            continue
        decisions = [(at, e) for at, e in enumerate(events[:index]) if e["event"] in ("heard", "silence")]
        if not decisions:
            count += 1
            continue
        at, last = decisions[-1]
        if not (last["event"] == "heard" and last["context"] == "confirm" and last["intent"] == "yes" and at in spoken):
            count += 1
    return count


def summary(games: Sequence[Game]) -> dict[str, Any]:
    """The figures of some games (one room and language, or all): every count `report` and `--json` show."""
    listenings = [listening for game in games for listening in game.listenings]
    outcomes = {name: sum(item.outcome == name for item in listenings) for name in OUTCOMES}
    spoken = sum(item.spoke for item in listenings)
    barge = [item.barge_in for item in listenings]
    tried = barge.count("heard") + barge.count("missed")
    delays = [delay for game in games for delay in game.echo_delays]
    return {
        "games": len(games),
        "games_ended": sum(game.ended for game in games),
        "locked_without_yes": sum(game.locked_without_yes for game in games),
        "utterances": spoken,
        **outcomes,
        "understood_share": round(outcomes["understood"] / spoken, 3) if spoken else None,
        "through_phone": _through_phone(listenings),
        "understood_by_voice": _by_voice(listenings),
        "asked_again_share": round(outcomes["asked_again"] / spoken, 3) if spoken else None,
        "wrong": outcomes["wrong_answer"] + outcomes["wrong_command"],
        "without_player": outcomes["without_player_asked_again"] + outcomes["without_player_taken"],
        "barge_ins_tried": tried,
        "barge_ins_heard": barge.count("heard"),
        "missed_barge_ins": barge.count("missed"),
        "false_barge_ins": barge.count("false"),
        "never_ended": sum(game.cut for game in games),
        "felt_latency": percentiles_ms(
            [item.latency for item in listenings if item.spoke and item.latency is not None]
        ),
        "echo_delay_ms": round(statistics.median(delays) * 1000) if delays else None,
        "echo_delay_spread_ms": round((max(delays) - min(delays)) * 1000) if delays else None,
        "dropout_seconds": round(sum(game.dropouts for game in games), 2),
        "phone_most_behind_seconds": round(max((game.phone_behind for game in games), default=0.0), 2),
        "sounding_frames": sum(game.sounding_frames for game in games),
        "filter_judged_frames": sum(game.judged_frames for game in games),
        "seconds": round(sum(game.seconds for game in games), 1),
    }


def report(figures: dict[str, Any]) -> str:
    """The figures as a table a person reads: one row per room, language, echo, front end and `barge_in_seconds`
    (the seconds of the player's speech over our voice before an utterance begins)."""
    out = [
        f"whole games through rooms on the private PulseAudio bus ({figures['games']} game(s), "
        f"{figures['seconds']:g} s; load average {figures['load_before']} before, {figures['load_after']} after)",
        "  understood / asked again / not heard / taken for something else (answers, commands) of the player's "
        "utterances; without the player: the quizmaster's voice or noise heard as an utterance (asked again, "
        "taken); barge-ins heard of tried, missed, false; utterances cut at the longest; felt latency p50/p95 ms",
        f"  {'room':12}{'mic':11}{'lang':5}{'echo':>6}{'front end':>11}{'b-in s':>7}{'utt':>5}{'underst.':>10}"
        f"{'again':>7}{'n.heard':>8}"
        f"{'wrong':>8}{'w/o pl.':>9}{'barge':>7}{'miss':>6}{'false':>6}{'cut':>5}{'latency':>12}{'ended':>7}",
    ]
    for row in figures["rooms"]:
        share = row["understood_share"]
        latency = row["felt_latency"]
        echo = "off" if row["echo_db"] is None else f"{row['echo_db']:+g}"
        out.append(
            f"  {row['room']:12}{row.get('microphone', 'room'):11}{row['language']:5}{echo:>6}"
            f"{row.get('frontend', ''):>11}{row.get('barge_in_seconds', ''):>7}{row['utterances']:>5}"
            f"{'-' if share is None else f'{share:.0%}':>10}{row['asked_again']:>7}{row['not_heard']:>8}"
            f"{row['wrong_answer']:>4}/{row['wrong_command']:<3}"
            f"{row['without_player_asked_again']:>5}/{row['without_player_taken']:<3}"
            f"{row['barge_ins_heard']:>4}/{row['barge_ins_tried']:<2}{row['missed_barge_ins']:>6}"
            f"{row['false_barge_ins']:>6}{row['never_ended']:>5}"
            f"{_ms(latency['p50_ms']):>6}/{_ms(latency['p95_ms']):<5}"
            f"{row['games_ended']:>3}/{row['games']:<3}"
        )
    for row in figures["rooms"]:
        voices = ", ".join(
            f"{VOICES.get(source, source)} {counts['understood']} of {counts['utterances']}"
            for source, counts in row.get("understood_by_voice", {}).items()
        )
        if voices:
            where = f"{row['room']} {row.get('microphone', 'room')} {row['language']}"
            out.append(f"  {where}, understood by voice: {voices}")
    locked = sum(row["locked_without_yes"] for row in figures["rooms"])
    out.append(f"  answers locked without the player's yes: {locked}")
    delays = [row["echo_delay_ms"] for row in figures["rooms"] if row["echo_delay_ms"] is not None]
    if delays:
        out.append(
            f"  echo delay as heard: {min(delays)}-{max(delays)} ms (median per row); mixer dropouts "
            f"{sum(row['dropout_seconds'] for row in figures['rooms']):g} s"
        )
    out += [f"  not measured: {what}: {why}" for what, why in figures["not_measured"].items()]
    return "\n".join(out)


def _through_phone(listenings: Sequence[Listening]) -> dict[str, int]:
    """The player's utterances the game heard through their phone, and what came of them."""
    own = [item for item in listenings if item.spoke and item.microphone == "phone"]
    return {"utterances": len(own), **{name: sum(item.outcome == name for item in own) for name in OUTCOMES[:5]}}


def _by_voice(listenings: Sequence[Listening]) -> dict[str, dict[str, int]]:
    """The player's utterances and those understood, by whose voice said them (`Spoken.source`): people's recordings
    ("real") apart from the synthetic voices that stand in where no person's recording says it."""
    spoken = [item for item in listenings if item.spoke]
    sources = sorted({item.source for item in spoken}, key=lambda source: (source != "real", source))
    return {
        source: {
            "utterances": sum(item.source == source for item in spoken),
            "understood": sum(item.source == source and item.outcome == "understood" for item in spoken),
        }
        for source in sources
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
