"""What an API reply cost: genai-prices' offline price data, with a config override table.

genai-prices (MIT, by the pydantic team) ships its price data in the wheel and never fetches
unless asked to (``update_prices``, which cctui does not call). Its ``Usage.input_tokens`` is
the *total* input, cache reads and writes included, where Anthropic's ``input_tokens`` is the
uncached part only; ``_usage`` converts. It prices 1-hour cache writes at their own rate and
applies Anthropic's long-context tier to a whole request when its total input crosses the
threshold, so each reply is priced on its own.

Pricing one reply through the library takes ~0.1 ms, too slow for a first build of
hundreds of thousands of replies. Prices are linear in each token count within a tier, so
``Rates`` asks the library once per model and tier for the price of each token kind and a
reply's cost is then a dot product. A model the library does not know (and no override
names) has no rates: its replies keep their tokens and a cost of ``None`` (shown "no price").
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cctui.config import ModelPrice
from cctui.history.extract import Usage

logger = logging.getLogger(__name__)

US_GEO_MULTIPLIER = 1.1
"""Anthropic's US data-residency surcharge (``inference_geo: "us"``)."""

_KINDS = ("input", "output", "cw5m", "cw1h", "cr", "web")
_PROBE = 1000


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per token (per request for web searches) of each kind, per input-size tier."""

    thresholds: tuple[int, ...]
    """Total-input sizes above which the next tier's rates apply to the whole request."""
    tiers: tuple[tuple[float, ...], ...]
    """One rate tuple per tier, in ``_KINDS`` order; ``len(tiers) == len(thresholds) + 1``."""

    def cost(self, u: Usage) -> float:
        total_in = u.input + u.cw5m + u.cw1h + u.cr
        tier = 0
        for t in self.thresholds:
            if total_in > t:
                tier += 1
        r = self.tiers[tier]
        # Spelled out (a build prices every reply): the same sum, in the same order.
        return (
            u.input * r[0] + u.output * r[1] + u.cw5m * r[2] + u.cw1h * r[3] + u.cr * r[4]
            + u.web_search * r[5]
        )  # fmt: skip


class Pricer:
    """Prices replies; one per process (rates are cached per model)."""

    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self._rates: dict[str, Rates | None] = {}

    @property
    def fingerprint(self) -> str:
        """Changes when the library's data or the overrides change (stored costs go stale)."""
        version = library_version()
        body = json.dumps(
            {k: v.model_dump() for k, v in sorted(self.overrides.items())}, sort_keys=True
        )
        return f"genai-prices {version} " + hashlib.sha1(body.encode()).hexdigest()[:12]

    def cost(self, u: Usage) -> float | None:
        """USD for one reply: its own ``costUSD`` if any, else computed; ``None`` if unknown."""
        if u.legacy_cost is not None:
            return u.legacy_cost
        rates = self.rates(u.model)
        if rates is None:
            return None
        cost = rates.cost(u)
        return cost * US_GEO_MULTIPLIER if u.geo == "us" else cost

    def rates(self, model: str) -> Rates | None:
        """The model's rates, or ``None`` when nobody knows its price."""
        if model not in self._rates:
            self._rates[model] = self._lookup(model)
        return self._rates[model]

    def _lookup(self, model: str) -> Rates | None:
        override = self.overrides.get(model)
        if override is not None:
            per = 1_000_000
            rates = (
                override.input / per,
                override.output / per,
                (override.cache_write_5m if override.cache_write_5m is not None
                 else override.input * 1.25) / per,
                (override.cache_write_1h if override.cache_write_1h is not None
                 else override.input * 2) / per,
                (override.cache_read if override.cache_read is not None
                 else override.input * 0.1) / per,
                0.0,
            )  # fmt: skip
            return Rates((), (rates,))
        try:
            return _library_rates(model)
        except Exception as exc:  # a library surprise must not stop indexing
            logger.warning("pricing %s failed: %s", model, exc)
            return None


def library_version() -> str:
    """genai-prices' version, as ``importlib.metadata.version`` gives it: read from the name
    of its ``.dist-info`` directory beside the package when there is exactly one. Every
    command compares the fingerprint, and importing ``importlib.metadata`` (with the ``email``
    package it loads) cost each ~0.05 s of CPU at start-up."""
    spec = importlib.util.find_spec("genai_prices")
    if spec is None:
        return "none"
    found = []
    if spec.origin is not None:
        site = os.path.dirname(os.path.dirname(spec.origin))
        with contextlib.suppress(OSError), os.scandir(site) as entries:
            found = [
                e.name[len(_DIST) : -len(".dist-info")]
                for e in entries
                if e.name.startswith(_DIST) and e.name.endswith(".dist-info")
            ]
    if len(found) == 1 and found[0]:
        return found[0]
    from importlib import metadata  # an unusual install: ask the slow way

    try:
        return metadata.version("genai-prices")
    except metadata.PackageNotFoundError:
        return "none"


_DIST = "genai_prices-"
"""A wheel's ``.dist-info`` name: the project's normalised name, a dash, the version."""


def _library_rates(model: str) -> Rates | None:
    from genai_prices import Usage as GUsage
    from genai_prices import calc_price
    from genai_prices.types import TieredPrices

    if not model or model.startswith("<"):  # "<synthetic>": the CLI's own, unbilled replies
        return None
    try:
        calc = calc_price(GUsage(input_tokens=1, output_tokens=1), model, provider_id="anthropic")
    except LookupError:
        try:
            calc = calc_price(GUsage(input_tokens=1, output_tokens=1), model)
        except LookupError:
            return None
    mp = calc.model_price
    thresholds: set[int] = set()
    for value in vars(mp).values():
        if isinstance(value, TieredPrices):
            thresholds.update(t.start for t in value.tiers)
    ordered = tuple(sorted(thresholds))
    starts = (0, *(t + 1 for t in ordered))

    def price(**counts: int) -> Decimal:
        ins = counts.get("input", 0) + counts.get("cw5m", 0) + counts.get("cw1h", 0)
        ins += counts.get("cr", 0)
        cw = counts.get("cw5m", 0) + counts.get("cw1h", 0)
        kwargs: dict[str, Any] = {"input_tokens": ins, "output_tokens": counts.get("output", 0)}
        if cw:
            kwargs |= {"cache_write_tokens": cw, "cache_write_5m_tokens": counts.get("cw5m", 0),
                       "cache_write_1h_tokens": counts.get("cw1h", 0)}  # fmt: skip
        if counts.get("cr"):
            kwargs["cache_read_tokens"] = counts["cr"]
        if counts.get("web"):
            kwargs["web_searches"] = counts["web"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Decimal(mp.calc_price(GUsage(**kwargs))["total_price"])

    tiers: list[tuple[float, ...]] = []
    for start in starts:
        n = max(start, _PROBE)
        row: list[float] = []
        for kind in _KINDS:
            if kind in ("output", "web"):
                base = price(input=start)
                row.append(float((price(input=start, **{kind: _PROBE}) - base) / _PROBE))
            else:
                row.append(float(price(**{kind: n}) / n))
        tiers.append(tuple(row))
    return Rates(ordered, tuple(tiers))
