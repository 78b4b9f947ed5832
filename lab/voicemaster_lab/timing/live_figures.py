"""`voicemaster bench live`'s arithmetic, pure: where the player's speech ends and the quizmaster's reply begins in
the recorded stream, and the figures of the turns.

The recording is the virtual devices' bus (`harness.pulse`): the player's speech on the left channel, the quizmaster's
voice on the right, on one clock. A turn's felt latency runs from the end of the player's speech (the last audible
sample of what was fed into the microphone) to the first audible sample of the quizmaster at the speaker after it.
The "heard you" cue (`earcons`, "heard") is told from the reply by its sound, a lone tone: its delay from the end of
the speech is measured apart, and the reply is the first sound after it that is not the cue.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from voicemaster.speech.voice.earcons import FIGURES, HEARD

RATE = 16_000
AUDIBLE = 328
"""-40 dBFS: a sample this loud is sound. The null sinks are digitally silent when nothing plays, and the voices'
own lead-in silence stays far below it, so the first such sample is where the reply is heard to begin."""
QUIET_BEFORE_SECONDS = 0.1
"""The speaker must have been silent this long before the end of the player's speech, or the turn overlapped the
quizmaster's own voice and has no felt latency to measure."""
CUE_FREQUENCY, CUE_SECONDS = FIGURES[HEARD][0]
CUE_LOOKBACK_SECONDS = 0.3
"""How long before the last audible sample of the player's speech a cue may begin and still be the one for it."""
CUE_BLOCK = 160
"""10 ms: the blocks in which the cue is told from the voice."""
CUE_SHARE = 0.8
"""A block whose sound is this much the cue's tone is the cue (a voice's energy spreads over many frequencies)."""
KINDS = ("answer", "yes", "joker", "name", "other")
"""What a turn was: an answer, a yes to "final answer?", a joker, a name, anything else (a yes to "play on?" or to
a name read back, a no to "anyone else?")."""


@dataclass(frozen=True)
class Fed:
    """One utterance the player said into the microphone, and what the game made of it."""

    language: str
    kind: str
    source: str
    """Who said it: "real" (a recording of a person), "pico" or "kokoro" (a voice)."""
    text: str
    meant: tuple[str, str | None]
    began: float
    """Seconds into the recording where feeding began (from the wall clock: about right, never exact)."""
    span: float
    """Seconds from the first to the last audible sample of the clip fed: exact."""
    heard: tuple[str, str | None] | None
    """The meaning the game recorded; None if it recorded nothing (it heard silence, or the run ended first)."""
    cpu_seconds: float | None
    """CPU the game's process spent (all its threads) from the end of feeding to the decision showing in its log."""
    alike: tuple[tuple[str, str | None], ...] = ()
    """Other meanings the game takes as `meant` at this question (`live_player.Reply.alike`)."""


@dataclass(frozen=True)
class Turn:
    fed: Fed
    speech_end: float | None
    """Seconds into the recording where the player's speech ended; None if it was not found."""
    reply: float | None
    """Seconds into the recording where the quizmaster's reply began; None if none came, or it overlapped."""
    cue: float | None = None
    """Seconds into the recording where the heard cue began after the speech ended; None if none was heard before
    the reply."""

    @property
    def cue_delay(self) -> float | None:
        return None if self.cue is None or self.speech_end is None else self.cue - self.speech_end

    @property
    def latency(self) -> float | None:
        return None if self.reply is None or self.speech_end is None else self.reply - self.speech_end

    @property
    def asked_again(self) -> bool:
        """Not understood: the quizmaster says so and asks again (or, at a yes/no question, takes it as no)."""
        return self.fed.heard is not None and self.fed.heard[0] == "unknown"

    @property
    def wrong(self) -> bool:
        """Understood as something the player did not say."""
        heard = self.fed.heard
        return heard is not None and not self.asked_again and heard != self.fed.meant and heard not in self.fed.alike


def audible(samples: npt.NDArray[np.int16]) -> npt.NDArray[np.bool_]:
    return np.abs(samples.astype(np.int32)) >= AUDIBLE


def speech_end(microphone: npt.NDArray[np.int16], near: float, span: float, slack: float = 0.5) -> float | None:
    """Where an utterance of `span` seconds (first to last audible sample) that began near `near` ends: the first
    audible sample from `slack` seconds before `near` on, plus the span; None if nothing audible follows."""
    start = max(0, round((near - slack) * RATE))
    loud = np.flatnonzero(audible(microphone[start:]))
    return None if not len(loud) else (start + int(loud[0])) / RATE + span


def reply_onset(speaker: npt.NDArray[np.int16], after: float) -> float | None:
    """The first audible sample of the speaker's reply after `after` seconds (the heard cue is no reply); None if
    it was not silent for `QUIET_BEFORE_SECONDS` before (the quizmaster was still speaking) or nothing followed."""
    return onsets(speaker, after)[1]


def onsets(speaker: npt.NDArray[np.int16], after: float) -> tuple[float | None, float | None]:
    """Where the heard cue and where the reply begin (None: not there). The reply is the first sound after `after`
    seconds that is not the cue; nothing when the speaker was not silent (but for the cue) for
    `QUIET_BEFORE_SECONDS` before. The cue is looked for from `CUE_LOOKBACK_SECONDS` before `after`: the pipeline
    may hear the end of speech before the last audible sample of a fading word."""
    at = round(after * RATE)
    cue = _cue_before(speaker, max(0, at - round(CUE_LOOKBACK_SECONDS * RATE)), at)
    if cue is False:
        return None, None
    position = at
    while True:
        loud = np.flatnonzero(audible(speaker[position:]))
        if not len(loud):
            return cue, None
        start = position + int(loud[0])
        end = _cue_end(speaker, start)
        if end is None:
            return cue, start / RATE
        cue = start / RATE if cue is None else cue
        position = end


def _cue_before(speaker: npt.NDArray[np.int16], start: int, at: int) -> float | Literal[False] | None:
    """The cue that began between `start` and `at` after the quizmaster's last sound there, if any; False when the
    quizmaster (not the cue) was audible in the last `QUIET_BEFORE_SECONDS` before `at`."""
    blocks = (at - start) // CUE_BLOCK
    first = at - blocks * CUE_BLOCK
    loud: npt.NDArray[np.bool_] = np.asarray(audible(speaker[first:at])).reshape(blocks, CUE_BLOCK)
    sounding = [bool(row.any()) for row in loud]
    cue: float | None = None
    index = 0
    while index < blocks:
        if not sounding[index]:
            index += 1
            continue
        begin = first + index * CUE_BLOCK
        onset = begin + int(np.flatnonzero(audible(speaker[begin : begin + CUE_BLOCK]))[0])
        end = _cue_end(speaker, onset)
        if end is not None:
            cue = cue if cue is not None else onset / RATE
            index = max(index + 1, -(-(end - first) // CUE_BLOCK))
            continue
        stop = index
        while stop < blocks and sounding[stop]:
            stop += 1
        if first + stop * CUE_BLOCK > at - round(QUIET_BEFORE_SECONDS * RATE):
            return False
        cue, index = None, stop  # a cue is one after the quizmaster's last sound
    return cue


def _cue_end(speaker: npt.NDArray[np.int16], start: int) -> int | None:
    """Where the cue beginning at `start` ends (or the reply cut it), if the sound there is the cue; None if not."""
    length = round(CUE_SECONDS * RATE)
    at = start
    while at + CUE_BLOCK <= min(len(speaker), start + length - CUE_BLOCK):  # its last 10 ms fade out
        if tone_share(speaker[at : at + CUE_BLOCK].astype(np.float64)) < CUE_SHARE:
            return None if at - start < 2 * CUE_BLOCK else at  # not 20 ms of the tone: the voice
        at += CUE_BLOCK
    return min(len(speaker), start + length)


def tone_share(block: npt.NDArray[np.float64]) -> float:
    """How much of a block's energy is the cue's tone."""
    t = np.arange(len(block)) / RATE
    sine = float(block @ np.sin(2 * np.pi * CUE_FREQUENCY * t))
    cosine = float(block @ np.cos(2 * np.pi * CUE_FREQUENCY * t))
    energy = float(block @ block)
    return 0.0 if energy == 0 else 2 * (sine**2 + cosine**2) / len(block) / energy


def audible_span(samples: npt.NDArray[np.int16]) -> float:
    """Seconds from the first to the last audible sample of a clip, one sample's length included."""
    loud = np.flatnonzero(audible(samples))
    return 0.0 if not len(loud) else (int(loud[-1]) - int(loud[0]) + 1) / RATE


def turns(fed: Sequence[Fed], stereo: npt.NDArray[np.int16]) -> list[Turn]:
    """Each utterance found in the recording (`stereo`: samples by channel, the microphone left, the speaker right)
    with the reply to it."""
    microphone, speaker = stereo[:, 0], stereo[:, 1]
    found = []
    for said in fed:
        end = speech_end(microphone, said.began, said.span)
        cue, reply = (None, None) if end is None else onsets(speaker, end)
        found.append(Turn(said, end, reply, cue))
    return found


def seconds_lost(turns: Sequence[Turn]) -> float:
    """What asking again costs the players: from the end of each utterance asked again to the end of the next one
    (the quizmaster saying it did not understand and asking again, and the player saying it again); had it been
    understood, the game would have gone on from the first."""
    lost = 0.0
    for turn, after in itertools.pairwise(turns):
        if turn.asked_again and turn.speech_end is not None and after.speech_end is not None:
            lost += after.speech_end - turn.speech_end
    return lost


def percentiles_ms(values: Sequence[float]) -> dict[str, float | None]:
    ms = [value * 1000 for value in values]
    return {
        "p50_ms": round(statistics.median(ms)) if ms else None,
        "p95_ms": round(statistics.quantiles(ms, n=20, method="inclusive")[-1]) if len(ms) > 1 else None,
        "max_ms": round(max(ms)) if ms else None,
    }


def summary(turns: Sequence[Turn], games: int) -> dict[str, Any]:
    """The figures `--json` prints: per kind of turn its felt latency and how often it was asked again, then the
    share of all turns asked again, the seconds a game loses to that, and CPU per decision."""
    figures: dict[str, Any] = {}
    for kind in KINDS:
        own = [turn for turn in turns if turn.fed.kind == kind]
        figures[kind] = {
            "turns": len(own),
            **percentiles_ms([turn.latency for turn in own if turn.latency is not None]),
            "asked_again": sum(turn.asked_again for turn in own),
            "wrong": sum(turn.wrong for turn in own),
            "by_source": {
                source: percentiles_ms([t.latency for t in own if t.fed.source == source and t.latency is not None])
                for source in sorted({turn.fed.source for turn in own})
            },
            "by_language": {
                language: percentiles_ms(
                    [t.latency for t in own if t.fed.language == language and t.latency is not None]
                )
                for language in sorted({turn.fed.language for turn in own})
            },
        }
    heard = [turn for turn in turns if turn.fed.heard is not None]
    lost = seconds_lost(turns)
    return {
        **figures,
        "turns": len(turns),
        "not_measured": sum(turn.latency is None for turn in turns),
        "asked_again_share": round(sum(turn.asked_again for turn in heard) / len(heard), 3) if heard else None,
        "wrong": sum(turn.wrong for turn in turns),
        "seconds_lost_to_asking_again": round(lost, 1),
        "seconds_lost_per_game": round(lost / games, 1) if games else None,
        "cpu_per_decision": percentiles_ms(
            [turn.fed.cpu_seconds for turn in turns if turn.fed.cpu_seconds is not None]
        ),
        "heard_cue": {
            "turns": sum(turn.cue_delay is not None for turn in turns),
            **percentiles_ms([delay for turn in turns if (delay := turn.cue_delay) is not None]),
        },
    }


def speculative(logged: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Reading ahead over the listenings that did: readings started at a short pause, the share of listenings a reading
    started ahead decided, and the CPU the readings thrown away took (on the other core)."""
    started = sum(int(entry["started"]) for entry in logged)
    used = sum(int(entry["used"]) for entry in logged)
    return {
        "listenings": len(logged),
        "started": started,
        "used": used,
        "used_share": round(used / started, 3) if started else None,
        "thrown_cpu_ms": round(sum(float(entry["thrown_ms"]) for entry in logged)),
    }


def report(figures: dict[str, Any]) -> str:
    measured = figures["measured"]
    out = [
        f"felt latency in a live game ({', '.join(figures['languages'])}; {figures['games']} game(s), "
        f"{measured['turns']} turns, {figures['seconds']:g} s): from the end of the player's speech at the microphone "
        f"to the first sample of the reply at the speaker, through PulseAudio's virtual devices",
        f"load average {figures['load_before']} before, {figures['load_after']} after; "
        f"OPENBLAS_NUM_THREADS={figures['openblas_threads']}",
        f"  {'turn':8}{'n':>4}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'asked again':>13}{'wrong':>7}   "
        "p50 by source; by language",
    ]
    for kind in KINDS:
        row = measured[kind]
        if not row["turns"]:
            continue
        sources = ", ".join(f"{source} {fmt(cell['p50_ms'])}" for source, cell in row["by_source"].items())
        sources += "; " + ", ".join(
            f"{language} {fmt(cell['p50_ms'])}" for language, cell in row["by_language"].items()
        )
        out.append(
            f"  {kind:8}{row['turns']:>4}{fmt(row['p50_ms']):>9}{fmt(row['p95_ms']):>9}"
            f"{fmt(row['max_ms']):>9}{row['asked_again']:>13}{row['wrong']:>7}   {sources}"
        )
    share = measured["asked_again_share"]
    out.append(
        f"  asked again: {'-' if share is None else f'{share:.0%}'} of turns, "
        f"{measured['seconds_lost_to_asking_again']:g} s lost ({fmt(measured['seconds_lost_per_game'])} s a game); "
        f"wrong meanings {measured['wrong']}; "
        f"{measured['not_measured']} turn(s) without a reply to time"
    )
    cpu = measured["cpu_per_decision"]
    out.append(
        f"  CPU of the game's process from the end of speech to the decision: p50 {fmt(cpu['p50_ms'])} ms, "
        f"p95 {fmt(cpu['p95_ms'])} ms"
    )
    cue = figures.get("heard_cue") or measured.get("heard_cue")
    if cue:
        out.append(
            f"  heard cue after the end of speech ({cue['turns']} turns): p50 {fmt(cue['p50_ms'])} ms, "
            f"p95 {fmt(cue['p95_ms'])} ms"
        )
    ahead = figures.get("speculative")
    if ahead and ahead["started"]:
        out.append(
            f"  read ahead from the short pause: {ahead['started']} readings started in {ahead['listenings']} "
            f"listenings, {ahead['used']} decided (share {ahead['used_share']}); those thrown away took "
            f"{ahead['thrown_cpu_ms']} ms on the other core"
        )
    out += [f"  {language}: not measured: {reason}" for language, reason in figures["not_measured"].items()]
    return "\n".join(out)


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
