"""How much memory the resampled sums need, checked before any is drawn, against what
this process may use: the least of the machine's memory, the process's own limits
(``ulimit -v`` / ``-d``) and its control group's (cgroup v2 ``memory.max``, v1
``memory.limit_in_bytes``: a container's or a CI job's cap, past which the kernel kills
the process without a word)."""

from __future__ import annotations

import os

from pairboot.errors import InputError

__all__ = ["memory_limit", "cgroup_memory_limit", "resident_bytes", "check_memory",
           "check_room"]

_UNLIMITED = 1 << 62
"""A cgroup v1 limit at or above this means none (the kernel writes 2**63 - 4096)."""

_MAX_DEPTH = 64
"""Levels of a cgroup's path looked at (its ancestors' limits apply too)."""


def memory_limit() -> int | None:
    """The bytes this process may hold: the least of the machine's memory, a limit set
    on the process (``ulimit -v`` / ``-d``) and its cgroup's limit; None where none can
    be read."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        pass
    try:
        import resource

        for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(which)[0]
            if soft != resource.RLIM_INFINITY and soft > 0:
                limits.append(soft)
    except (ImportError, AttributeError, OSError, ValueError):
        pass
    group = cgroup_memory_limit()
    if group is not None:
        limits.append(group)
    return min(limits) if limits else None


def cgroup_memory_limit(root: str = "/") -> int | None:
    """The memory limit of this process's control group, or None without one: the
    least ``memory.max`` (cgroup v2) or ``memory.limit_in_bytes`` (v1) of its group and
    the group's ancestors, found through ``/proc/self/cgroup`` and the mounts of
    ``/proc/self/mountinfo`` (``/sys/fs/cgroup`` where they say nothing).  ``root``:
    where ``/proc`` and ``/sys`` are (a test's fake tree)."""
    groups = _read(root, "proc/self/cgroup")
    if groups is None:
        return None
    mounts = _cgroup_mounts(root)
    limits = []
    for line in groups.splitlines()[:_MAX_DEPTH]:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: one hierarchy
            where = mounts.get("cgroup2", [("/", "sys/fs/cgroup"),
                                           ("/", "sys/fs/cgroup/unified")])
            name = "memory.max"
        elif "memory" in controllers.split(","):
            where = mounts.get("memory", [("/", "sys/fs/cgroup/memory")])
            name = "memory.limit_in_bytes"
        else:
            continue
        for mount_root, mount_point in where:
            limit = _least_up(root, mount_point, _inside(path, mount_root), name)
            if limit is not None:
                limits.append(limit)
    return min(limits) if limits else None


def _read(root: str, path: str) -> str | None:
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            return f.read(1 << 20)
    except OSError:
        return None


def _cgroup_mounts(root: str) -> dict[str, list[tuple[str, str]]]:
    """``{"cgroup2": [(root, mount point)], "memory": [...]}`` from mountinfo: each
    cgroup mount's root within the hierarchy (a container's own group, mounted as its
    ``/``) and where it is mounted (relative to ``root``)."""
    text = _read(root, "proc/self/mountinfo") or ""
    found: dict[str, list[tuple[str, str]]] = {}
    for line in text.splitlines()[:10_000]:
        head, sep, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if not sep or len(fields) < 5 or len(rest) < 3:
            continue
        kind = rest[0]
        if kind == "cgroup2":
            key = "cgroup2"
        elif kind == "cgroup" and "memory" in rest[2].split(","):
            key = "memory"
        else:
            continue
        found.setdefault(key, []).append((fields[3], fields[4].lstrip("/")))
    return found


def _inside(path: str, mount_root: str) -> str:
    """The group's path below the mount's root (the whole path where the mount shows
    the hierarchy's root, or another part of it)."""
    if mount_root not in ("", "/") and (path == mount_root
                                        or path.startswith(mount_root.rstrip("/") + "/")):
        return path[len(mount_root):]
    return path


def _least_up(root: str, mount_point: str, path: str, name: str) -> int | None:
    """The least limit in file ``name`` of the group at ``path`` and its ancestors up to
    the mount's root; a group not found there (another namespace's path) is looked
    for from its nearest ancestor that is."""
    parts = [p for p in path.split("/") if p and p not in (".", "..")][:_MAX_DEPTH]
    least = None
    for depth in range(len(parts), -1, -1):
        text = _read(root, os.path.join(mount_point, *parts[:depth], name))
        if text is None:
            continue
        value = text.strip()
        if value.isdigit() and 0 < int(value) < _UNLIMITED:  # ("max": none)
            least = int(value) if least is None else min(least, int(value))
    return least


def resident_bytes() -> int | None:
    """The memory this process holds now (its resident set), or None where it cannot be
    read."""
    text = _read("/", "proc/self/statm")
    if text is not None:
        fields = text.split()
        if len(fields) > 1 and fields[1].isdigit():
            try:
                return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")
            except (AttributeError, OSError, ValueError):
                return None
    return None


def check_room(needed: int, what: str, hint: str, param: str | None = None) -> None:
    """Refuse ``what`` when ``needed`` more bytes would take this process past the memory
    it may use (:func:`memory_limit`, less what it holds now): one line with the sizes
    and ``hint`` (what would need less), instead of the kernel's kill at the limit.
    ``what`` says what the bytes are for ("`n_resamples=...` needs about X for ...")."""
    limit = memory_limit()
    if limit is None:
        return
    held = resident_bytes() or 0
    if held + needed > limit:
        raise InputError(
            f"{what.format(size=_size(needed))}, more than the {_size(max(limit - held, 0))}"
            f" this process may still use (of {_size(limit)}; {_size(held)} held): {hint}",
            param=param)


def _size(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def check_memory(n_resamples: int, per_resample: int) -> None:
    """Refuse, before any is drawn, resamples whose sums cannot fit in memory: each
    holds ``per_resample`` numbers, and what is computed from them about as much
    again twice (the metric's values, the contrasts, the sorted distribution)."""
    needed = 8 * n_resamples * (3 * per_resample + 16)
    check_room(needed, f"`n_resamples={n_resamples}` needs about {{size}} for the resampled "
               f"sums ({per_resample} numbers per resample, and what is computed from them)",
               "give fewer resamples", param="n_resamples")
