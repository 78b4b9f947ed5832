"""`voicemaster bench asr` as text: the figures of `bench.asr.run`, a corpus and an engine at a time, with the margin
curve the decision's margins were set from."""

from __future__ import annotations

from typing import Any

from voicemaster.speech.hearing.whisper.decision import MARGINS
from voicemaster_lab.asr import narrowband, options
from voicemaster_lab.asr.samples import MANIFEST


def report(figures: dict[str, Any]) -> str:
    lines = [f"speech corpus {figures['corpus']}: {figures['clips']} utterances"]
    for which, label in (("utterances", "the corpus's utterances"), ("heldout", "the held-out utterances")):
        found = figures["written"][which]
        by_language = ", ".join(
            f"{language} {cell['share']:.1%}" for language, cell in found["accuracy_by_language"].items() if cell
        )
        lines.append(
            f"intent matcher on the written words of {label}: {found['accuracy']['share']:.1%} of "
            f"{found['accuracy']['n']} commands ({by_language}), taken for something else {found['wrong']}, "
            f"false accepts {found['false_accepts']} of {found['non_command_utterances']}"
        )
    if figures.get("kokoro_missing"):
        lines.append(f"Kokoro voices: not measured: {figures['kokoro_missing']}")
    if figures.get("pico_missing"):
        lines.append(f"Pico voices: not measured: {figures['pico_missing']}")
    if figures.get("option_missing"):
        lines.append(f"option words: not all measured: {figures['option_missing']}")
    if figures["real_missing"]:
        lines.append(f"real recordings: not measured: {figures['real_missing']}")
    for name, result in figures["engines"].items():
        lines.append(f"\n{name}: {result['describe']}")
        for corpus in (which for which in result if which != "describe"):
            label = CORPORA.get(corpus) or _label(corpus)
            if corpus in result:
                lines += _report_corpus(result[corpus], label)
                if corpus not in CORPORA and result[corpus]["utterances"]:
                    lines += _report_sources(result[corpus], mistakes=False, title=label)
                if result[corpus].get("undecided_curve") and result[corpus]["utterances"]:
                    lines += options.undecided_report(result[corpus]["undecided_curve"])
                if result[corpus].get("over_our_voice") and result[corpus]["utterances"]:
                    lines.append(
                        "    decided again, after our line / over our voice / over it by whole words only / with the "
                        "doubted margin (understood / wrong / false accepts): "
                        + " / ".join(
                            "{understood} {wrong} {false_accepts}".format(**result[corpus]["over_our_voice"][when])
                            for when in ("after", "over", "over_words_only", "over_doubted")
                        )
                    )
                if result[corpus].get("crowded"):
                    lines.append(f"    crowded decisions (said over other people's talk): {result[corpus]['crowded']}")
                if result[corpus].get("narrowband_curve"):
                    lines.append(f"    telephone-band (narrowband) decisions: {result[corpus]['narrowband']}")
                    lines += narrowband.report(result[corpus]["narrowband_curve"])
        if "real" in result and result["real"]["utterances"]:
            lines += _report_sources(result["real"])
        if "options" in result and result["options"]["utterances"]:
            lines += options.report(result["options"])
    return "\n".join(line for line in lines if line)


CORPORA = {
    "espeak": "eSpeak-NG corpus",
    "kokoro": "Kokoro voices (the demo's players; English and French)",
    "pico": "Pico voices (the German demo's players; also English and French), four pitches and rates",
    "real": "real recordings (klettres-data, Asterisk's Allison, June and Armelle)",
    "options": "option words said by people, each among four of its kind (klettres, its telephone copy, Asterisk)",
}


def _report_corpus(result: dict[str, Any], label: str) -> list[str]:
    lines = [f"  {label}:"]
    for language, reason in result["not_installed"].items():
        lines.append(f"    {language}: not measured: {reason}")
    if not result["utterances"]:
        return lines
    accuracy = result["accuracy"]
    lines.append(f"    intent accuracy {accuracy['share']:.1%} of {accuracy['n']} commands" if accuracy else "")
    for language, row in result["accuracy_by_language"].items():
        cells = ", ".join(f"{condition} {cell['share']:.1%} ({cell['n']})" for condition, cell in row.items())
        lines.append(f"      {language}: {cells}")
    asked = result["asked_again"]
    lines.append(f"    asked again {asked['share']:.1%}, wrong meaning {result['wrong']}" if asked else "")
    by_context = ", ".join(f"{context} {count}" for context, count in result["false_accepts_by_context"].items())
    lines.append(
        f"    false accepts {result['false_accepts']} of {result['non_command_utterances']} non-commands"
        + (f" ({by_context})" if by_context else "")
    )
    lines.append(f"    decode p50 {result['decode_ms']['p50']} ms, p95 {result['decode_ms']['p95']} ms")
    if "decision_cpu_ms" in result:
        cpu = result["decision_cpu_ms"]
        lines.append(f"    decision CPU p50 {cpu['p50']} ms, p95 {cpu['p95']} ms (cores: {result['decision_cores']})")
    if result.get("decoder", {}).get("searches"):
        rows, steps = result["decoder"]["rows"], result["decoder"]["steps"]
        lines.append(
            f"    decoder rows a search p50 {rows['p50']}, p95 {rows['p95']}, mean {rows['mean']}; "
            f"steps p50 {steps['p50']}, mean {steps['mean']}"
        )
    refused = result["refused_though_read"]
    lines.append(
        f"    refused though the free reading was what was said: {refused['exact']} exactly, {refused['near']} nearly"
    )
    if result["margins"]:
        lines.append(
            f"    margins (in use: meaning {MARGINS.meaning:g}, free {MARGINS.free:g}): "
            "accuracy / wrong meanings / false accepts"
        )
        frees = sorted({point["free"] for point in result["margins"]})
        lines.append("      meaning \\ free " + "".join(f"{free:>16g}" for free in frees))
        for meaning in sorted({point["meaning"] for point in result["margins"]}):
            row = [point for point in result["margins"] if point["meaning"] == meaning]
            cells = "".join(
                f"{point['accuracy'] or 0:>9.1%} /{point['wrong']:>2} /{point['false_accepts']:>2}" for point in row
            )
            lines.append(f"      {meaning:>7g}       {cells}")
    return lines


def _label(corpus: str) -> str:
    if corpus.startswith(MANIFEST):
        return f"your recordings ({corpus.removeprefix(MANIFEST)})"
    return f"the real recordings and people's option words in the room {corpus!r}"


def _report_sources(result: dict[str, Any], *, mistakes: bool = True, title: str = "real recordings") -> list[str]:
    """The recordings per source (or room) and language, each kind of utterance on its own line, then, where
    `mistakes`, every utterance not understood as meant: the clip, the free reading and the decision."""
    lines = [
        f"  {title} per source and language (commands understood / taken for something else / asked again;"
        " non-commands taken for a command):"
    ]
    for group, kinds in result["by_source"].items():
        for kind, cell in kinds.items():
            accuracy = cell["accuracy"]
            understood = f"{accuracy['share']:>6.1%} of {accuracy['n']:>3}" if accuracy else f"{'-':>6} of   0"
            label = group if kind == "all" else f"  {kind}"
            lines.append(
                f"    {label:<18} {understood}  wrong {cell['wrong']:>2}  asked again {cell['asked_again']:>3}"
                f"  false accepts {cell['false_accepts']:>2} of {cell['non_command_utterances']:>3}"
            )
    if not mistakes:
        return lines
    lines.append("  real recordings not understood as meant (clip: said -> free reading -> decision, expected):")
    for mistake in result["mistakes"]:
        lines.append(
            f"    {mistake['file']}: {mistake['said']!r} ({mistake['kind']}) -> {mistake['heard']!r} -> "
            f"{mistake['understood']}, expected {mistake['expected']}"
        )
    return lines
