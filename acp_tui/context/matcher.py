"""Fuzzy matching of a query against the file index, fast enough to run on every keystroke.

Why our own scorer: rapidfuzz's path-friendly scorers (`partial_ratio`, `WRatio`) took 60-230 ms over
100,000 paths here, and they rank by edit distance, which is not what a file picker wants. Users
type the letters of a path in order (fzf style): a path matches when the query is a subsequence of
it, case-insensitively.

Speed comes from keeping every per-path loop in C: the corpus holds precomputed lower-case paths and
last components, and each pass is `compress(indices, map(predicate, strings))` with a possessive
regular expression (`[^a]*+a[^b]*+b...`, no backtracking) or a `str` method as the predicate.
As the query grows, only the previous query's matches are searched (incremental narrowing); the
match sets of recent queries are cached, so Backspace is instant, and a corpus that grew since
(the index is still being built) is searched only in its new part.

Ranking, best first, each tier in corpus order (the index orders it by length, shorter first):
the last component starts with the query, contains it, the path contains it, the last component
contains it as a subsequence, and finally any subsequence match. Only the tiers needed to fill the
requested number of results are scanned, and each lazily, so a common query costs one pass.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, islice, repeat
from operator import contains, itemgetter
from typing import Any

import msgspec

from acp_tui.context.index import CharMasks, Corpus

__all__ = ["Match", "Matcher", "normalise_query", "is_subsequence", "name_tier", "DEFAULT_LIMIT"]

#: Results returned by default (the picker shows about ten and scrolls through the rest).
DEFAULT_LIMIT = 50
#: Longer queries are cut: nobody types more, and the pattern stays small.
MAX_QUERY = 200


class Match(msgspec.Struct, frozen=True):
    """One result: an index entry and the offsets (in `path`) of the characters the query matched."""

    index: int
    path: str
    positions: tuple[int, ...]

    @property
    def is_dir(self) -> bool:
        return self.path.endswith("/")


def normalise_query(query: str) -> str:
    """The query as matched: lower-case, without a leading `./`, bounded in length."""
    query = query.lower()
    while query.startswith("./"):
        query = query[2:]
    return query[:MAX_QUERY]


def is_subsequence(query: str, text: str) -> bool:
    """Are `query`'s characters in `text`, in order (the fuzzy match of the short lists: agents in a dialog)?"""
    at = 0
    for char in query:
        at = text.find(char, at)
        if at < 0:
            return False
        at += 1
    return True


def name_tier(query: str, name: str, label: str) -> int | None:
    """How well a short list's row matches `query` (all lower case): 0 its name starts with it, 1 the name
    contains it, 2 the name holds its letters in order, 3 the whole label does; None: no match."""
    if name.startswith(query):
        return 0
    if query in name:
        return 1
    if is_subsequence(query, name):
        return 2
    if is_subsequence(query, label):
        return 3
    return None


def wants_hidden(query: str) -> bool:
    """Hidden entries are offered only when the query asks for them: it starts a component with a dot."""
    return query.startswith(".") or "/." in query


def _subsequence(query: str) -> re.Pattern[str]:
    """`[^a]*+a[^b]*+b...`: matches when `query` is a subsequence, scanning each string once."""
    parts = []
    for char in query:
        escaped = re.escape(char)
        parts.append(f"[^{escaped}]*+{escaped}")
    return re.compile("".join(parts), re.DOTALL)


def _strings(source: list[str], indices: Sequence[int]) -> Sequence[str]:
    """`source[i] for i in indices`, gathered in C."""
    if isinstance(indices, range) and indices.step == 1:
        return source[indices.start : indices.stop]
    if not indices:
        return ()
    if len(indices) == 1:
        return (source[indices[0]],)
    gathered: tuple[str, ...] = itemgetter(*indices)(source)
    return gathered


def _filter(query: str, indices: Sequence[int], source: list[str]) -> list[int]:
    """The indices whose string has `query` as a subsequence, in order."""
    strings = _strings(source, indices)
    flags: Iterable[Any]
    if len(query) == 1:
        flags = map(contains, strings, repeat(query))
    else:
        flags = map(_subsequence(query).match, strings)
    return list(compress(indices, flags))


def _masked(corpus: Corpus, masks: CharMasks, q: str, hidden: bool) -> list[int]:
    """The entries that contain every character of `q` (a superset of the matches), from the
    corpus's character bitmasks: a few big-integer ANDs instead of a pass over every path."""
    combined = masks.all if hidden else masks.visible
    for char in set(q):
        mask = masks.chars.get(char)
        if mask is not None:
            combined &= mask
    return list(compress(range(corpus.size), combined.to_bytes(corpus.size, "big")))


#: A query occurring at most this often as a substring gets its substring tiers from the occurrences.
_FEW_OCCURRENCES = 4000


def _substring_tiers(corpus: Corpus, q: str, hidden: bool) -> list[Iterator[int]] | None:
    """The three substring tiers (last component starts with `q`, contains it, path contains it) from
    the occurrences of `q` in the corpus's joined paths, or None when there are too many to list
    (then the tiers fill up fast by scanning) or the corpus has no joined paths."""
    masks = corpus.masks
    if masks is None or "\0" in q:
        return None
    blob, starts = masks.blob, masks.starts
    if blob.count(q) > _FEW_OCCURRENCES:
        return None
    limit = corpus.size if hidden else corpus.visible_size  # ranked corpora list hidden entries last
    tiers: tuple[list[int], list[int], list[int]] = ([], [], [])
    last = -1
    at = blob.find(q)
    while at >= 0:
        index = bisect_right(starts, at) - 1
        if index >= limit:
            break
        if index != last:
            last = index
            lowered = corpus.lower[index]
            name_at = len(lowered) - len(corpus.base[index])
            # the best occurrence of this path decides its tier: the last component first
            if lowered.startswith(q, name_at):
                tiers[0].append(index)
            elif lowered.find(q, name_at) >= 0:
                tiers[1].append(index)
            else:
                tiers[2].append(index)
        at = blob.find(q, at + 1)
    return [iter(tier) for tier in tiers]


class _Entry:
    """A cached match set: the indices matching one query among the first `size` entries."""

    __slots__ = ("size", "matches")

    def __init__(self, size: int, matches: list[int]) -> None:
        self.size = size
        self.matches = matches


class Matcher:
    """Searches `Corpus` snapshots; keeps the match sets of recent queries for narrowing.

    Not thread-safe: one matcher per picker, used from one thread.
    """

    def __init__(self, cache_size: int = 48) -> None:
        self._cache: OrderedDict[str, _Entry] = OrderedDict()
        self._cache_size = cache_size
        self._key: tuple[int, bool] | None = None

    def search(self, corpus: Corpus, query: str, limit: int = DEFAULT_LIMIT) -> list[Match]:
        """The best `limit` matches of `query` (as typed after `@`) in `corpus`, best first."""
        q = normalise_query(query)
        hidden = wants_hidden(q)
        if not q:
            indices = range(corpus.size) if hidden else corpus.visible[: min(limit, corpus.visible_size)]
            return [Match(i, corpus.paths[i], ()) for i in islice(indices, limit)]
        masks = corpus.masks
        if masks is not None:
            candidates, verified = _masked(corpus, masks, q, hidden), False
        else:
            candidates, verified = self.matching(corpus, q, hidden), True
        return [self._match(corpus, q, i) for i in self._ranked(corpus, q, candidates, limit, verified)]

    def matching(self, corpus: Corpus, q: str, hidden: bool) -> list[int]:
        """Every index whose path has the normalised query `q` as a subsequence, in corpus order."""
        key = (corpus.generation, hidden)
        if key != self._key:
            self._cache.clear()
            self._key = key
        cached = self._cache.get(q)
        if cached is not None and cached.size == corpus.size:
            self._cache.move_to_end(q)
            return cached.matches
        base = cached
        if base is None:
            for end in range(len(q) - 1, 0, -1):
                base = self._cache.get(q[:end])
                if base is not None:
                    break
        if base is None:
            matches = _filter(q, self._range(corpus, 0, hidden), corpus.lower)
        else:
            old = base.matches if base is cached else _filter(q, base.matches, corpus.lower)
            matches = old + _filter(q, self._range(corpus, base.size, hidden), corpus.lower)
        self._cache[q] = _Entry(corpus.size, matches)
        self._cache.move_to_end(q)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return matches

    @staticmethod
    def _range(corpus: Corpus, start: int, hidden: bool) -> Sequence[int]:
        """The candidate indices from `start` on: every entry, or the visible ones."""
        if hidden:
            return range(start, corpus.size)
        first = bisect_left(corpus.visible, start, 0, corpus.visible_size) if start else 0
        return corpus.visible[first : corpus.visible_size]

    @staticmethod
    def _ranked(corpus: Corpus, q: str, candidates: list[int], limit: int, verified: bool) -> list[int]:
        """Up to `limit` of `candidates`, tier by tier (see the module docstring).

        `verified`: every candidate is known to match; otherwise the last tier checks each one.
        """
        if verified and len(candidates) <= 1:
            return candidates[:limit]

        # Gathered lazily (C-level `map`): a tier that fills the results early never touches the rest.
        def bases() -> Iterator[str]:
            return map(corpus.base.__getitem__, candidates)

        def lowers() -> Iterator[str]:
            return map(corpus.lower.__getitem__, candidates)

        pattern = _subsequence(q)
        in_name = "/" not in q.rstrip("/")  # a query with an inner slash can only match across components
        tiers: list[Iterator[int]] = []
        substring = _substring_tiers(corpus, q, hidden=wants_hidden(q))
        if substring is not None:
            tiers.extend(substring)  # rare (or absent) as a substring: found by position, not by a scan
        else:
            if in_name:
                tiers.append(compress(candidates, map(str.startswith, bases(), repeat(q))))
                tiers.append(compress(candidates, map(contains, bases(), repeat(q))))
            tiers.append(compress(candidates, map(contains, lowers(), repeat(q))))
        if in_name and len(q) > 1:
            tiers.append(compress(candidates, map(pattern.match, bases())))
        tiers.append(iter(candidates) if verified else compress(candidates, map(pattern.match, lowers())))
        chosen: list[int] = []
        taken: set[int] = set()
        for tier in tiers:
            for index in tier:
                if index not in taken:
                    taken.add(index)
                    chosen.append(index)
                    if len(chosen) >= limit:
                        return chosen
        return chosen

    @staticmethod
    def _match(corpus: Corpus, q: str, index: int) -> Match:
        path = corpus.paths[index]
        return Match(index, path, match_positions(path, corpus.base_start[index], q))


def match_positions(path: str, base_start: int, q: str) -> tuple[int, ...]:
    """Offsets in `path` to highlight for the normalised query `q`: the contiguous match in the last
    component if any, else in the path, else the leftmost subsequence (preferring the last component)."""
    lowered = path.lower()
    if len(lowered) != len(path):
        return ()  # a case mapping changed the length: offsets would be wrong, so highlight nothing
    found = lowered.find(q, base_start)
    if found < 0:
        found = lowered.find(q)
    if found >= 0:
        return tuple(range(found, found + len(q)))
    for start in (base_start, 0):
        positions: list[int] = []
        at = start
        for char in q:
            at = lowered.find(char, at)
            if at < 0:
                break
            positions.append(at)
            at += 1
        else:
            return tuple(positions)
    return ()
