"""A deterministic mixed corpus for the estimator benchmark: prose, Python, JSON, logs, CJK, base64."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable

WORDS = (  # noqa: SIM905
    "the of and to in is that for it as was with be by on not he this are or his from at which but have "
    "an they you were her she there been one all we their has would when if so no what up out said about "
    "into than them can only other new some could time these two may then do first any my now such like "
    "our over man me even most made after also did many before must through back years where much your "
    "way well down should because each just those people how too little state good very make world still "
    "own see men work long get here between both life being under never day same another know while last "
    "might us great old year off come since against go came right conversation context window summary "
    "compaction provider model token estimate message session boundary archive reasonably surprisingly "
    "unquestionably internationalization responsibilities approximately "
).split()

PY_NAMES = ["session", "message", "estimator", "window", "tokens", "result", "builder", "config", "items", "value",
            "context", "summary", "provider", "request", "response", "index", "offset", "payload", "cache", "store"]
CJK_TEXT = (
    "上下文管理是长对话的核心。当估计的上下文超过模型窗口的阈值时，较早的消息会被总结，摘要会注入系统提示。"
    "所有原始消息都保留在数据库中。工具结果在存储时会被截断，旧的工具结果在每次请求前会被修剪。"
    "ユーザーは会話を続けることができ、コンテキストエラーを見ることはありません。"
    "모든 메시지는 로컬 데이터베이스에 저장됩니다。"
)


def prose(rng: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        sentence = [rng.choice(WORDS) for _ in range(rng.randint(6, 22))]
        sentence[0] = sentence[0].capitalize()
        text = " ".join(sentence) + rng.choice([".", ".", ".", "?", "!", ";", ","]) + " "
        if rng.random() < 0.1:
            text += "\n\n"
        out.append(text)
        size += len(text)
    return "".join(out)[:n]


def python_code(rng: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        a, b, c = rng.sample(PY_NAMES, 3)
        block = (
            f"def {a}_{b}(self, {c}: list[int], limit: int = {rng.randint(1, 999)}) -> dict[str, int]:\n"
            f'    """Returns the {b} of {c}."""\n'
            f"    {a} = {{k: v for k, v in enumerate({c}) if v > limit}}\n"
            f"    for i in range(len({c})):\n"
            f"        if {c}[i] % {rng.randint(2, 9)} == 0:\n"
            f"            self._{b}[i] += {c}[i] * {rng.random():.3f}\n"
            f"    return {{\"{a}\": len({a}), \"{b}\": sum({c})}}\n\n"
        )
        out.append(block)
        size += len(block)
    return "".join(out)[:n]


def json_text(rng: random.Random, n: int) -> str:
    rows = []
    size = 0
    while size < n:
        row = {
            "id": rng.randint(1, 10**6),
            "name": " ".join(rng.choice(WORDS) for _ in range(2)),
            "tags": [rng.choice(PY_NAMES) for _ in range(rng.randint(0, 4))],
            "score": round(rng.random() * 100, 2),
            "active": rng.random() < 0.5,
            "parent": None if rng.random() < 0.3 else rng.randint(1, 999),
        }
        rows.append(row)
        size += 110
    indent = rng.choice([None, 2])
    return json.dumps(rows, indent=indent)[:n]


def logs(rng: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    levels = ["INFO", "DEBUG", "WARNING", "ERROR"]
    while size < n:
        line = (
            f"2026-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z {rng.choice(levels):7s} "
            f"[{rng.choice(PY_NAMES)}.{rng.choice(PY_NAMES)}] pid={rng.randint(100, 99999)} "
            f"req={rng.getrandbits(32):08x} {' '.join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))} "
            f"latency_ms={rng.randint(1, 5000)} path=/api/v1/{rng.choice(PY_NAMES)}/{rng.randint(1, 9999)}\n"
        )
        out.append(line)
        size += len(line)
    return "".join(out)[:n]


def cjk(rng: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        start = rng.randint(0, len(CJK_TEXT) - 20)
        piece = CJK_TEXT[start : start + rng.randint(10, 60)]
        out.append(piece)
        size += len(piece)
    return "".join(out)[:n]


def base64_blob(rng: random.Random, n: int) -> str:
    raw = rng.randbytes(n * 3 // 4 + 3)
    text = base64.b64encode(raw).decode()
    if rng.random() < 0.5:
        text = "\n".join(text[i : i + 76] for i in range(0, len(text), 76))
    return text[:n]


CLASSES: dict[str, Callable[[random.Random, int], str]] = {
    "prose": prose,
    "python": python_code,
    "json": json_text,
    "logs": logs,
    "cjk": cjk,
    "base64": base64_blob,
}


def corpus(samples_per_class: int = 60, seed: int = 20260101) -> dict[str, list[str]]:
    """Samples per class, lengths from 200 to 30,000 characters, identical on every run."""
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for name, make in CLASSES.items():
        out[name] = [make(rng, rng.choice([200, 500, 1_000, 3_000, 8_000, 30_000])) for _ in range(samples_per_class)]
    return out
