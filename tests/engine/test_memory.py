"""The memory this process may use: the machine's, the process's limits and its control
group's, read from a fake ``/proc`` and ``/sys`` tree (no real cgroup is made); and the
checks that consult it refuse before the kernel would kill the run (issue 33)."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.engine import memory
from pairboot.engine.memory import cgroup_memory_limit

MIB = 1 << 20


def fake_root(tmp_path, cgroup: str, mountinfo: str | None, files: dict[str, str]):
    """A tree with ``proc/self/cgroup``, ``proc/self/mountinfo`` (unless None) and the
    cgroup files ``files`` (path below the root -> content)."""
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(cgroup)
    if mountinfo is not None:
        (tmp_path / "proc/self/mountinfo").write_text(mountinfo)
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return str(tmp_path)


V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
V1_MOUNT = ("31 23 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
            "35 31 0:32 {root} /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
            "36 31 0:33 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n")


def test_cgroup_v2_the_least_limit_of_the_group_and_its_ancestors(tmp_path):
    root = fake_root(tmp_path, "0::/ci.slice/job-7\n", V2_MOUNT, {
        "sys/fs/cgroup/ci.slice/job-7/memory.max": f"{200 * MIB}\n",
        "sys/fs/cgroup/ci.slice/memory.max": "max\n",
        "sys/fs/cgroup/memory.max": "max\n",
    })
    assert cgroup_memory_limit(root) == 200 * MIB
    (tmp_path / "sys/fs/cgroup/ci.slice/memory.max").write_text(f"{150 * MIB}\n")
    assert cgroup_memory_limit(root) == 150 * MIB  # (an ancestor's cap holds too)


def test_cgroup_v2_without_a_limit_or_without_mountinfo(tmp_path):
    root = fake_root(tmp_path, "0::/user.slice\n", V2_MOUNT,
                     {"sys/fs/cgroup/user.slice/memory.max": "max\n"})
    assert cgroup_memory_limit(root) is None
    other = tmp_path / "other"
    root = fake_root(other, "0::/\n", None, {"sys/fs/cgroup/memory.max": f"{300 * MIB}"})
    assert cgroup_memory_limit(root) == 300 * MIB  # (the usual mount point)


def test_cgroup_v1_in_a_container_and_from_another_namespace(tmp_path):
    # a container: its own group is mounted as the hierarchy's root
    root = fake_root(tmp_path, "5:cpu:/docker/abc\n4:memory:/docker/abc\n0::/\n",
                     V1_MOUNT.format(root="/docker/abc"),
                     {"sys/fs/cgroup/memory/memory.limit_in_bytes": f"{256 * MIB}\n"})
    assert cgroup_memory_limit(root) == 256 * MIB
    # the path seen from the host, the mount showing only the container's part: its
    # nearest group that is there
    other = tmp_path / "ns"
    root = fake_root(other, "4:memory:/process_api/3fc3\n", V1_MOUNT.format(root="/"), {
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",  # none
        "sys/fs/cgroup/memory/process_api/memory.limit_in_bytes": f"{512 * MIB}\n",
    })
    assert cgroup_memory_limit(root) == 512 * MIB


def test_no_cgroup_files_mean_no_limit(tmp_path):
    assert cgroup_memory_limit(str(tmp_path)) is None
    root = fake_root(tmp_path, "garbage\n4:memory:/a\n", "not a mount line\n", {
        "sys/fs/cgroup/memory/a/memory.limit_in_bytes": "not a number\n"})
    assert cgroup_memory_limit(root) is None


def test_memory_limit_is_the_least_of_machine_process_and_cgroup(monkeypatch):
    monkeypatch.setattr(memory, "cgroup_memory_limit", lambda: 200 * MIB)
    assert memory.memory_limit() == 200 * MIB
    monkeypatch.setattr(memory, "cgroup_memory_limit", lambda: None)
    assert memory.memory_limit() > 200 * MIB


def test_checks_refuse_under_a_cgroup_limit_before_drawing(monkeypatch):
    """Under a 200 MiB cgroup cap the resamples' check and the run in chunks's refuse
    in one line naming the limit and what the process holds (issue 33: a 5M-row
    --stream under a 200 MB cap was killed without a message)."""
    monkeypatch.setattr(memory, "cgroup_memory_limit", lambda: 200 * MIB)
    monkeypatch.setattr(memory, "resident_bytes", lambda: 120 * MIB)
    a = np.linspace(0, 1, 50)
    with pytest.raises(pairboot.InputError, match=r"more than the 80 MiB this process may "
                                                  r"still use \(of 200 MiB; 120 MiB held\)"):
        pairboot.compare(a, a[::-1], n_resamples=1_000_000, seed=1)
    assert pairboot.compare(a, a[::-1], n_resamples=1000, seed=1).n_resamples == 1000


def test_a_run_in_chunks_is_refused_before_reading_under_a_small_limit(tmp_path,
                                                                       monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_text("id,a,b\n" + "".join(f"q{i},0.{i % 10},0.{i % 7}\n" for i in range(50)))
    monkeypatch.setattr(memory, "cgroup_memory_limit", lambda: 200 * MIB)
    monkeypatch.setattr(memory, "resident_bytes", lambda: 60 * MIB)
    read = []
    monkeypatch.setattr("pairboot.partitioned.files.scan",
                        lambda *a, **k: read.append(a) or iter(()))
    with pytest.raises(pairboot.InputError, match=r"reading the files in chunks needs about "
                                                  r".* MiB .*of 200 MiB; 60 MiB held\)"):
        pairboot.compare_files([str(path)], a="a", b="b", id="id", seed=1)
    assert read == []
