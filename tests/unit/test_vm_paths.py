"""VM dispatch: host paths on a command line become paths the guest can see (pure path logic;
no VM). A path the guest cannot see would be written to its throw-away disk and lost."""
from pathlib import Path

from harness.vm.dispatch import map_host_paths
from harness.vm.machine import Share


def shares_at(tmp_path: Path):
    code = tmp_path / "code"
    (code / "experiments").mkdir(parents=True)
    return [Share("code", code, "/mnt/code")], code


def test_a_path_inside_a_share_takes_the_guest_path_and_needs_no_new_share(tmp_path):
    shares, code = shares_at(tmp_path)
    argv, extra = map_host_paths(["run", str(code / "experiments"), "--output", str(code)], shares)
    assert argv == ["run", "/mnt/code/experiments", "--output", "/mnt/code"]
    assert extra == []


def test_a_directory_outside_every_share_is_shared_on_its_own(tmp_path):
    shares, _ = shares_at(tmp_path)
    results = tmp_path / "elsewhere" / "results"
    results.mkdir(parents=True)
    argv, extra = map_host_paths(["run", "--output", str(results)], shares)
    assert argv == ["run", "--output", "/mnt/path1"]
    assert [(s.host_path, s.guest_path) for s in extra] == [(results, "/mnt/path1")]


def test_a_file_outside_every_share_is_seen_through_its_directory(tmp_path):
    shares, _ = shares_at(tmp_path)
    exp = tmp_path / "mine" / "e.yaml"
    exp.parent.mkdir()
    exp.write_text("name: x\n")
    out = tmp_path / "mine" / "out"
    out.mkdir()
    argv, extra = map_host_paths([str(exp), f"--output={out}"], shares)
    assert argv == ["/mnt/path1/e.yaml", "--output=/mnt/path1/out"]  # one share serves both
    assert len(extra) == 1 and extra[0].host_path == exp.parent


def test_relative_words_and_paths_that_do_not_exist_are_left_alone(tmp_path):
    shares, _ = shares_at(tmp_path)
    argv = ["run", "experiments/x.yaml", "--quick", "/no/such/dir", "--checks=a,b"]
    assert map_host_paths(argv, shares) == (argv, [])


def test_the_guest_output_names_host_paths(tmp_path):
    from harness.vm.dispatch import host_view
    shares = [Share("code", Path("/home/u/harness"), "/mnt/code"),
              Share("cache", Path("/home/u/.cache/h"), "/mnt/cache"),
              Share("path1", Path("/tmp/a"), "/mnt/path1"),
              Share("path10", Path("/tmp/b"), "/mnt/path10")]
    shown = host_view(shares)
    assert shown("demo: 2 ok -> /mnt/code/results/demo\n") == \
        "demo: 2 ok -> /home/u/harness/results/demo\n"
    assert shown("-> /mnt/path10/x and /mnt/path1") == "-> /tmp/b/x and /tmp/a"
    assert shown("built in /mnt/cache/mediumd; /mnt/codex stays") == \
        "built in /mnt/cache/mediumd; /mnt/codex stays"


def test_the_prompt_writes_through_a_share_of_its_own_when_the_guest_copied_the_directory(tmp_path):
    """The checkout is a snapshot share (its top level is a copy in the guest's memory): a
    capture written in the guest's working directory there would vanish with the VM."""
    from harness.vm.dispatch import output_share
    code = tmp_path / "code"
    (code / "labs").mkdir(parents=True)
    cache = tmp_path / "cache"
    cache.mkdir()
    shares = [Share("code", code, "/mnt/code", snapshot=True), Share("cache", cache, "/mnt/cache")]
    out = output_share(code, shares)
    assert out is not None and (out.host_path, out.guest_path, out.snapshot) == (code, "/mnt/out", False)
    assert output_share(code / "labs", shares).host_path == code / "labs"
    elsewhere = tmp_path / "lab-room"
    elsewhere.mkdir()
    # a directory shared as it is (not a snapshot) already writes through; none holds: none
    assert output_share(elsewhere, shares + [Share("cwd", elsewhere, "/mnt/cwd")]) is None
    assert output_share(elsewhere, shares) is None
