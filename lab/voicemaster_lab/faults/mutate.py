"""Seeded mutations of good files, the way files go bad: a flipped byte, a cut-off end, a hand edit with the wrong
type, a table written once where the format wants an array of them, text from another system (old Mac line
endings, UTF-16, a BOM), and the hostile cases a parser must survive (nesting a thousand deep, numbers of thousands
of digits, half a UTF-16 surrogate pair, a field larger than the csv module's limit).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

Mutation = Callable[[bytes, random.Random, str], bytes]
"""(content, rng, kind) -> mutated content; kind is toml, json, csv or wav."""


def flip_bytes(data: bytes, rng: random.Random, _kind: str) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random, _kind: str) -> bytes:
    return data[: rng.randrange(len(data))] if data else data


def deep_nesting(data: bytes, rng: random.Random, kind: str) -> bytes:
    depth = rng.choice((200, 1000, 100_000))
    if kind == "json":
        return data.replace(b'"results": [', b'"results": [' + b"[" * depth + b"]" * depth + b",", 1)
    if kind == "toml":
        return b"deep = " + b"[" * depth + b"]" * depth + b"\n" + data
    return data + b"[" * depth


def huge_number(data: bytes, rng: random.Random, kind: str) -> bytes:
    digits = b"9" * rng.choice((30, 4301, 5000))
    if kind == "csv":
        return re.sub(rb"\n\d+,", b"\n" + digits + b",", data, count=rng.randint(1, 3))
    numbers = list(re.finditer(rb"(?<=[=:\[ ])\d+", data))
    if not numbers:
        return data + b"\nn = " + digits + b"\n"
    chosen = rng.choice(numbers)
    return data[: chosen.start()] + digits + data[chosen.end() :]


def wrong_type(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind == "json":
        values = list(re.finditer(rb'(?<=": )("[^"]*"|\[[^\]]*\])', data))
        replacement = rng.choice((b"null", b"3", b"true", b"{}", b"[]", b"[1, 2, 3]", b'""'))
    elif kind == "toml":
        values = list(re.finditer(rb'(?<== )("[^"\n]*"|\[[^\n]*\]|\d+|true|false)', data))
        replacement = rng.choice((b"1", b"true", b"[]", b"{}", b'""', b"[1, 2]", b'"x"', b"1.5", b"1979-05-27"))
    else:
        return data
    if not values:
        return data
    chosen = rng.choice(values)
    return data[: chosen.start()] + replacement + data[chosen.end() :]


def surrogate(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind == "json":
        return data.replace(b'"question": "', b'"question": "\\ud800', rng.randint(1, 3))
    if kind == "toml":
        return (
            data.replace(b'= "', b'= "\\uD800', 1)
            if rng.random() < 0.5
            else data.replace(b'= "', b'= "\xed\xa0\x80', 1)
        )
    return data + b"\xed\xa0\x80"


def old_mac_endings(data: bytes, rng: random.Random, _kind: str) -> bytes:
    return data.replace(b"\n", rng.choice((b"\r", b"\r\n")))


def single_table(data: bytes, _rng: random.Random, _kind: str) -> bytes:
    return data.replace(b"[[question]]", b"[question]", 1).replace(b"[[card]]", b"[card]", 1)


def huge_field(data: bytes, rng: random.Random, kind: str) -> bytes:
    blob = b"x" * rng.choice((140_000, 300_000))
    if kind == "csv":
        return data.replace(b",", b',"' + blob if rng.random() < 0.5 else b"," + blob + b",", 1)
    if kind == "json":
        return data.replace(b'"question": "', b'"question": "' + blob, 1)
    return data.replace(b'= "', b'= "' + blob, 1)


def drop_line(data: bytes, rng: random.Random, _kind: str) -> bytes:
    lines = data.split(b"\n")
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def repeat_line(data: bytes, rng: random.Random, _kind: str) -> bytes:
    lines = data.split(b"\n")
    if lines:
        index = rng.randrange(len(lines))
        lines.insert(index, lines[index])
    return b"\n".join(lines)


def odd_encoding(data: bytes, rng: random.Random, _kind: str) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return b"\xef\xbb\xbf" + data
    if choice == 1:
        return data.decode("utf-8", "replace").encode("utf-16")
    if choice == 2:
        return data.replace(b" ", b"\x00", 3)
    return data.decode("utf-8", "replace").encode("latin-1", "replace")


def bad_level(data: bytes, rng: random.Random, kind: str) -> bytes:
    level = rng.choice((b"99", b"-1", b"0", b"16", b"abc", b"", b"1.5", b"\xd9\xa3"))
    if kind == "csv":
        return re.sub(rb"\n\d+,", b"\n" + level + b",", data, count=rng.randint(1, 3))
    if kind == "json":
        return data.replace(b'"difficulty": "easy"', b'"difficulty": "' + level + b'"', 1)
    return re.sub(rb"level = \d+", b"level = " + (level or b'""'), data, count=1)


def empty_text(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind == "json":
        key = rng.choice((b"question", b"category", b"correct_answer"))
        return re.sub(rb'"' + key + rb'": "[^"]*"', b'"' + key + b'": ""', data, count=rng.randint(1, 3))
    if kind == "csv":
        return re.sub(rb"\n(\d+),[^,\n]*,", rb"\n\1,,", data, count=rng.randint(1, 3))
    return re.sub(rb'question = "[^"\n]*"', b'question = ""', data, count=1)


def unbalanced_quote(data: bytes, rng: random.Random, _kind: str) -> bytes:
    index = rng.randrange(len(data)) if data else 0
    return data[:index] + b'"' + data[index:]


def empty(_data: bytes, _rng: random.Random, _kind: str) -> bytes:
    return b""


def wav_header(data: bytes, rng: random.Random, _kind: str) -> bytes:
    """A WAV's sizes and format fields made wrong: a header that promises more, or another sample width."""
    out = bytearray(data)
    if len(out) > 44:
        field_at = rng.choice((4, 16, 20, 22, 24, 28, 32, 34, 40))
        out[field_at : field_at + 2] = rng.randrange(65536).to_bytes(2, "little")
    return bytes(out)


def absurd_rate(data: bytes, rng: random.Random, _kind: str) -> bytes:
    """A header claiming a rate no recording has (2 147 483 647 Hz was a bug), or the 16-bit PCM format written as
    WAVE_FORMAT_EXTENSIBLE, which must be read (issue 25)."""
    out = bytearray(data)
    if len(out) > 44 and rng.random() < 0.5:
        out[24:28] = rng.choice((2_147_483_647, 0, 1, 10**9)).to_bytes(4, "little")
    elif len(out) > 44:
        out[20:22] = (0xFFFE).to_bytes(2, "little")  # its sub-format then reads from the data: often refused
    return bytes(out)


def odd_length(data: bytes, _rng: random.Random, _kind: str) -> bytes:
    """Cut to an odd number of data bytes: a recording stopped mid-sample."""
    return data[: len(data) - 1 if len(data) % 2 == 0 else len(data)]


INVISIBLE = ("\u200b", "\u2060\ufeff", "\u200d\u00ad", "\u0301", "\u200e\u200f")
"""Text a listener would not hear: zero-width and other format characters, a combining mark on nothing."""


def invisible_text(data: bytes, rng: random.Random, kind: str) -> bytes:
    """A question, an answer or an option made only of invisible characters (issue 25)."""
    blank = rng.choice(INVISIBLE).encode()
    if kind == "json":
        key = rng.choice((b"question", b"correct_answer", b"category"))
        return re.sub(rb'"' + key + rb'": "[^"]*"', b'"' + key + b'": "' + blank + b'"', data, count=rng.randint(1, 3))
    if kind == "csv":
        column = rng.randrange(1, 7)
        return re.sub(rb"\n((?:[^,\n]*,){" + str(column).encode() + rb"})[^,\n]*", rb"\n\1" + blank, data, count=2)
    key = rng.choice((b"question", b"answer", b"category"))
    return re.sub(key + rb' = "[^"\n]*"', key + b' = "' + blank + b'"', data, count=1)


OTHER_DIGITS = ("\u00b2", "\u2462", "\u0663", "\uff13", "\U0001d7db", "\u0be9", "\u00b9\u00b2")
"""Superscripts, circled, Arabic-Indic, full-width, mathematical and Tamil digits: not 0-9 (issue 25)."""


def other_digits(data: bytes, rng: random.Random, kind: str) -> bytes:
    level = rng.choice(OTHER_DIGITS).encode()
    if kind == "csv":
        return re.sub(rb"\n\d+,", b"\n" + level + b",", data, count=rng.randint(1, 3))
    if kind == "json":
        return data.replace(b'"difficulty": "easy"', b'"difficulty": "' + level + b'"', 1)
    return re.sub(rb"level = \d+", b'level = "' + level + b'"', data, count=1)


BANK_QUESTION = (
    "What is the smallest country in the world by area?",
    "Vatican City",
    ("Monaco", "San Marino", "Malta"),
)
"""A question of the shipped English bank (en/millionaire/level-07.toml), that an import joins."""


def bank_duplicate(data: bytes, rng: random.Random, kind: str) -> bytes:
    """A question the bank already holds, once or twice (issue 25: an import must leave it out, keep the rest)."""
    question, answer, wrong = BANK_QUESTION
    times = rng.choice((1, 2))
    if kind == "csv":
        row = f"7,Geography,{question},{answer},{','.join(wrong)},\n".encode()
        return data.rstrip(b"\n") + b"\n" + row * times
    if kind == "json":
        item = json.dumps({"category": "Geography", "type": "multiple", "difficulty": "medium", "question": question,
                           "correct_answer": answer, "incorrect_answers": list(wrong)}).encode()  # fmt: skip
        return data.replace(b'"results": [', b'"results": [' + (item + b",") * times, 1)
    entry = (f'\n[[question]]\nid = "en-m-07-001"\nlevel = 7\ncategory = "Geography"\nquestion = "{question}"\n'
             f'options = ["{answer}", "{wrong[0]}", "{wrong[1]}", "{wrong[2]}"]\nanswer = "{answer}"\n'
             'explanation = "It lies within Rome."\n').encode()  # fmt: skip
    return data + entry * times if b"[[question]]" in data else data


def option_count(data: bytes, rng: random.Random, kind: str) -> bytes:
    """A row with a fifth option or only three: named with its line and count, never shifted into the explanation."""
    if kind != "csv":
        return data
    lines = data.split(b"\n")
    if len(lines) > 2:
        index = rng.randrange(1, len(lines) - 1)
        cells = lines[index].split(b",")
        if len(cells) > 5:
            cells.insert(5, b"Extra") if rng.random() < 0.5 else cells.pop(5)
            lines[index] = b",".join(cells)
    return b"\n".join(lines)


def long_text(data: bytes, rng: random.Random, kind: str) -> bytes:
    """An option of 60 words, a question of 500: what cannot be read aloud in a game (issue 25)."""
    words = b" ".join([b"Donaudampfschiff"] * rng.choice((60, 500)))
    if kind == "csv":
        return re.sub(rb"\n((?:[^,\n]*,){4})[^,\n]*", rb"\n\1" + words, data, count=1)
    if kind == "json":
        return data.replace(b'"correct_answer": "', b'"correct_answer": "' + words + b" ", 1)
    return re.sub(rb'options = \["', b'options = ["' + words + b" ", data, count=1)


COMMON: tuple[Mutation, ...] = (flip_bytes, truncate, drop_line, repeat_line, odd_encoding, empty, unbalanced_quote)
ISSUE_25: tuple[Mutation, ...] = (invisible_text, other_digits, bank_duplicate, long_text)
BY_KIND: dict[str, tuple[Mutation, ...]] = {
    "toml": (*COMMON, deep_nesting, huge_number, wrong_type, surrogate, old_mac_endings, single_table, huge_field,
             bad_level, empty_text, *ISSUE_25),
    "json": (*COMMON, deep_nesting, huge_number, wrong_type, surrogate, old_mac_endings, huge_field, bad_level,
             empty_text, *ISSUE_25),
    "csv": (*COMMON, huge_number, old_mac_endings, huge_field, bad_level, empty_text, *ISSUE_25, option_count),
    "wav": (flip_bytes, truncate, odd_length, wav_header, empty, absurd_rate),
}  # fmt: skip


def mutate(data: bytes, rng: random.Random, kind: str) -> tuple[bytes, tuple[str, ...]]:
    """One to three mutations, the names of those applied."""
    chosen = [rng.choice(BY_KIND[kind]) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    for mutation in chosen:
        data = mutation(data, rng, kind)
    return data, tuple(mutation.__name__ for mutation in chosen)
