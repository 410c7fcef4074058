"""The replay benchmark's scripted session: deterministic turns (chat, tools, CJK, JSON, code, facts, recall)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Literal

TurnKind = Literal["fact", "chat", "cjk", "json", "code", "tool", "recall"]

TAG = re.compile(r"\[t(\d{3,})\]")
FACT_LINE = re.compile(r"FACT: ([^=\n]+?) = ([^\n]+)")

FACTS: tuple[tuple[str, str], ...] = (
    ("release codename", "ORCHID-42"),
    ("staging database port", "54329"),
    ("on-call engineer", "Ilse Varga"),
    ("deploy region", "eu-north-1"),
    ("budget cap", "EUR 18,750"),
    ("API rate limit", "1,200 requests per minute"),
    ("customer id", "CUS-7781-QX"),
    ("feature flag", "ff_checkout_v3"),
    ("backup window", "02:30-03:15 UTC"),
    ("test city", "Trondheim"),
    ("invoice prefix", "PLM-2026-"),
    ("escalation channel", "#ops-harbour"),
)

_PROSE = (
    "the service keeps a ledger of every request and replays it when the queue drains while the cache "
    "warms up slowly because each shard owns a range of keys that moves between nodes during a rebalance "
    "so operators watch latency percentiles and error budgets before approving a deploy to production"
)
_WORDS = tuple(_PROSE.split())
_CJK = (
    "長い会話でも文脈を失わないことが大切です。要約は古いメッセージを置き換えますが、原文はすべて保存されます。"
    "上下文管理让对话可以无限延续。工具结果在存储时被截断，旧的结果在请求前被修剪。"
    "사용자는 대화를 계속하고, 요약은 중요한 사실을 보존합니다."
)
_PAGE_KINDS = ("log", "json", "doc", "csv")


@dataclass(frozen=True)
class Turn:
    """One scripted user turn and how the simulated model answers it."""

    index: int
    kind: TurnKind
    user_text: str
    reply_text: str
    page_path: str | None = None
    fact_key: str | None = None
    fact_value: str | None = None


@dataclass(frozen=True)
class Script:
    """The whole session: turns in order; pages are generated on request by `page_body`."""

    turns: tuple[Turn, ...]
    seed: int

    def by_index(self) -> dict[int, Turn]:
        """Turns keyed by their 1-based index (the [tNNN] tag in the user text)."""
        return {t.index: t for t in self.turns}


def _prose(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        sentence = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 18)))
        words.append(sentence.capitalize() + ".")
        size += len(sentence) + 2
    return " ".join(words)


def _cjk(rng: random.Random, chars: int) -> str:
    start = rng.randrange(len(_CJK))
    text = (_CJK * (chars // len(_CJK) + 2))[start : start + chars]
    return text


def _json_blob(rng: random.Random, items: int) -> str:
    records = [
        {
            "id": f"ord-{rng.randrange(10**6):06d}",
            "status": rng.choice(["paid", "pending", "refunded", "failed"]),
            "amount": round(rng.uniform(1, 900), 2),
            "tags": rng.sample(["eu", "vip", "retry", "mobile", "web", "b2b"], 2),
            "ts": f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
        }
        for _ in range(items)
    ]
    return json.dumps({"orders": records, "count": items}, indent=1)


def _code(rng: random.Random, functions: int) -> str:
    parts = []
    for n in range(functions):
        verb, noun = rng.choice(["load", "parse", "merge", "flush", "retry"]), rng.choice(["batch", "ledger", "shard"])
        name = f"{verb}_{noun}{n}"
        parts.append(
            f"def {name}(items: list[dict[str, int]], limit: int = {rng.randint(2, 99)}) -> dict[str, int]:\n"
            f"    \"\"\"{_prose(rng, 40)}\"\"\"\n"
            "    totals: dict[str, int] = {}\n"
            "    for item in items[:limit]:\n"
            "        for key, value in item.items():\n"
            f"            totals[key] = totals.get(key, 0) + value * {rng.randint(1, 9)}\n"
            "    return totals\n"
        )
    return "\n\n".join(parts)


def page_body(path: str, seed: int = 7) -> tuple[bytes, str]:
    """The deterministic page served at `/page/<turn>/<kind>/<bytes>`: body and content type."""
    _, _, turn, kind, size_text = path.split("/")[:5]
    size = int(size_text)
    rng = random.Random(seed * 100_003 + int(turn))
    lines: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        if kind == "log":
            line = (
                f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                f"{rng.randint(0, 59):02d}Z 10.0.{rng.randint(0, 255)}.{rng.randint(0, 255)} "
                f"{rng.choice(['GET', 'POST', 'PUT'])} /api/v2/{rng.choice(['orders', 'users', 'ledger'])}/"
                f"{rng.randrange(10**5)} {rng.choice([200, 200, 200, 201, 404, 500])} {rng.randint(1, 900)}ms"
            )
        elif kind == "json":
            line = json.dumps({"row": n, "sku": f"SKU-{rng.randrange(10**6):06d}", "qty": rng.randint(1, 40),
                               "price": round(rng.uniform(1, 500), 2), "warehouse": rng.choice(["osl", "ber", "ams"])})
            line += ","
        elif kind == "csv":
            line = f"{n},{rng.randrange(10**8)},{rng.choice(_WORDS)},{round(rng.uniform(0, 1), 6)},{rng.choice(_WORDS)}"
        else:
            line = f"## Section {n}\n{_prose(rng, 400)}"
        lines.append(line)
        total += len(line) + 1
    body = "\n".join(lines)[:size]
    if kind == "json":
        body = "[\n" + body.rstrip(",\n") + "\n]"
    content_type = "application/json" if kind == "json" else "text/plain; charset=utf-8"
    return body.encode(), content_type


def build_script(turns: int = 200, *, seed: int = 7, min_page: int = 20_000, max_page: int = 200_000,
                 facts: int = len(FACTS)) -> Script:
    """A session of `turns` turns: facts stated early, a mixed middle, every fact asked back at the end."""
    rng = random.Random(seed)
    facts = max(1, min(facts, len(FACTS), turns // 3))
    recall_from = turns - facts + 1
    fact_turns = sorted(rng.sample(range(1, max(facts + 1, min(turns // 5, 25) + 1)), facts))
    script: list[Turn] = []
    fact_no = 0
    for index in range(1, turns + 1):
        tag = f"[t{index:03d}]"
        if index in fact_turns:
            key, value = FACTS[fact_no]
            fact_no += 1
            text = f"{tag} Please note this for later.\nFACT: {key} = {value}\n{_prose(rng, rng.randint(80, 300))}"
            script.append(Turn(index, "fact", text, f"Noted: the {key} is {value}. " + _prose(rng, 200),
                               fact_key=key, fact_value=value))
            continue
        if index >= recall_from:
            key, value = FACTS[index - recall_from]
            text = f"{tag} Recall check: what is the {key}? Answer from what I told you earlier."
            script.append(Turn(index, "recall", text, "", fact_key=key, fact_value=value))
            continue
        kind = rng.choices(("chat", "cjk", "json", "code", "tool"), weights=(35, 12, 13, 12, 28))[0]
        script.append(_middle_turn(rng, index, tag, kind, min_page, max_page))
    return Script(tuple(script), seed)


def _middle_turn(rng: random.Random, index: int, tag: str, kind: str, min_page: int, max_page: int) -> Turn:
    if kind == "tool":
        size = int(min_page * (max_page / min_page) ** rng.random()) if max_page > min_page else min_page
        page_kind = rng.choice(_PAGE_KINDS)
        path = f"/page/{index}/{page_kind}/{size}"
        text = f"{tag} Fetch the {page_kind} report at the page server and tell me what stands out."
        reply = f"I read the {page_kind} report ({size} bytes). " + _prose(rng, rng.randint(300, 900))
        return Turn(index, "tool", text, reply, page_path=path)
    if kind == "cjk":
        text = f"{tag} {_cjk(rng, rng.randint(120, 400))}"
        return Turn(index, "cjk", text, _cjk(rng, rng.randint(150, 500)))
    if kind == "json":
        text = f"{tag} Check this payload:\n{_json_blob(rng, rng.randint(6, 30))}"
        return Turn(index, "json", text, "The payload parses. Normalized:\n" + _json_blob(rng, rng.randint(3, 12)))
    if kind == "code":
        text = f"{tag} Review this module:\n```python\n{_code(rng, rng.randint(2, 6))}\n```"
        return Turn(index, "code", text, "Suggested version:\n```python\n" + _code(rng, rng.randint(1, 4)) + "\n```")
    text = f"{tag} {_prose(rng, rng.randint(100, 700))}"
    return Turn(index, "chat", text, _prose(rng, rng.randint(300, 1500)))


def turn_index(user_text: str) -> int | None:
    """The turn number tagged in a user message, if any."""
    match = TAG.search(user_text)
    return int(match.group(1)) if match else None
