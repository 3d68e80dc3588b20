"""Kills during model swaps and first builds (issue 27, items 3 and 4), with real processes.

- *model sets*: a process changes a domain's set of models (``assistant.app.lifecycle.model_sets.ModelSetChange``,
  files of a MB, each stamped with its generation) and is killed at a fault point before or after the
  switch, or at a random moment; afterwards every serving file must come from one generation (*mixed* if
  not), and the next change must succeed;
- *learn update*: `clarify learn update DOMAIN` killed just after it wrote its new encoder (fault point):
  the serving encoder must be the one from before and load (*wrong encoder* if not);
- *first builds*: `clarify domain build faq` in a fresh home, killed at a random moment or just before the
  build is renamed into place; afterwards the domain is either not built or loads whole (*empty built*
  if it is listed as built and does not), and the next build must succeed and leave no temporary file;
- *two first launches*: two `clarify prepare faq` started together in a fresh home both end well.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.reliability.environment import REPO, clarify_command, clarify_env, copy_home

FAULT_ENV = "CLARIFY_FAULT"
SET_FILES = ("encoder.pt", "encoder.json", "policy.pt", "policy.json")
CHANGE = """
import sys
from assistant import paths
from assistant.app.lifecycle.model_sets import ModelSetChange
generation = sys.argv[1]
with ModelSetChange("desk") as change:
    for name in NAMES:
        (paths.models_dir("desk") / name).write_bytes(generation.encode() + b"\\n" + bytes(1_000_000))
    change.commit()
""".replace("NAMES", repr(SET_FILES))


@dataclass
class Figures:
    set_kills: int = 0
    mixed_sets: int = 0
    update_kills: int = 0
    wrong_encoders: int = 0
    build_kills: int = 0
    empty_built: int = 0
    unhealed: int = 0
    concurrent_launches: int = 0
    launch_failures: int = 0
    failures: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "model_set_kills": self.set_kills,
            "mixed_sets": self.mixed_sets,
            "learn_update_kills": self.update_kills,
            "wrong_encoders": self.wrong_encoders,
            "first_build_kills": self.build_kills,
            "empty_built_domains": self.empty_built,
            "unhealed_builds": self.unhealed,
            "concurrent_first_launches": self.concurrent_launches,
            "launch_failures": self.launch_failures,
            "failures": self.failures[:20],
        }


def _serving_generations(home: Path) -> set[str]:
    """The generations the serving files of the probe's domain come from (one, unless a set is mixed)."""
    script = (
        "from assistant import paths; import sys; "
        "print(' '.join((paths.models_dir('desk') / n).read_bytes().split(b'\\n')[0].decode() for n in sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *SET_FILES],
        env=clarify_env(home),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    return set(done.stdout.split()) if done.returncode == 0 else {f"error: {done.stderr[-200:]}"}


def probe_model_sets(work: Path, kills: int, seed: int = 0) -> Figures:
    """``kills`` model-set changes killed at a fault point or a random moment, each followed by a check."""
    figures = Figures()
    rng = np.random.default_rng(seed)
    home = work / "sets-home"
    (home / "models" / "desk").mkdir(parents=True, exist_ok=True)
    for name in SET_FILES:
        (home / "models" / "desk" / name).write_bytes(b"g0\n")
    serving = "g0"
    for generation, i in enumerate(range(kills), start=1):
        how = ("model-set:before-switch", "model-set:after-switch", "random")[i % 3]
        env = clarify_env(home) | ({FAULT_ENV: how} if how != "random" else {})
        argv = [sys.executable, "-c", CHANGE, f"g{generation}"]
        proc = subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if how == "random":
            time.sleep(float(rng.uniform(0.0, 1.5)))
            proc.kill()
        if proc.wait(timeout=120) != -9:  # the change ended before the random moment: nothing was killed
            serving = f"g{generation}"
            continue
        figures.set_kills += 1
        found = _serving_generations(home)
        if len(found) != 1 or next(iter(found)) not in (serving, f"g{generation}"):
            figures.mixed_sets += 1
            figures.failures.append(f"model set after a kill ({how}): serving {sorted(found)}")
        done = subprocess.run([*argv[:-1], f"g{generation}-next"], env=clarify_env(home), cwd=REPO, capture_output=True)
        serving = f"g{generation}-next"
        if done.returncode != 0 or _serving_generations(home) != {serving}:
            figures.mixed_sets += 1
            figures.failures.append(f"the change after a kill ({how}) failed: {done.stderr.decode()[-200:]}")
    return figures


def probe_learn_update(trained_home: Path, domain: str, work: Path, kills: int, figures: Figures) -> None:
    """`clarify learn update` killed just after writing its new encoder (2 training steps: a probe of the
    swap, not of learning); the encoder from before must serve and load."""
    home = copy_home(trained_home, work / "update-home", domain)
    for _ in range(kills):
        before = _encoder_bytes(home, domain)
        env = clarify_env(home) | {FAULT_ENV: "learn-update:trained"}
        argv = clarify_command("learn", "update", domain, "--max-steps", "2", "--no-policies", "--samples", "2")
        done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True, timeout=900)
        figures.update_kills += 1
        loads = subprocess.run(
            clarify_command("domain", "stats", domain), env=clarify_env(home), cwd=home, capture_output=True
        )
        check = subprocess.run(
            [
                sys.executable,
                "-c",
                f"from assistant.app.lifecycle.registry import ModelRegistry; ModelRegistry({domain!r}).encoder",
            ],
            env=clarify_env(home),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != -9 or _encoder_bytes(home, domain) != before or check.returncode or loads.returncode:
            figures.wrong_encoders += 1
            figures.failures.append(
                f"learn update killed after writing its encoder: exit {done.returncode}, encoder "
                f"{'unchanged' if _encoder_bytes(home, domain) == before else 'CHANGED'}, load {check.stderr[-200:]}"
            )


def _encoder_bytes(home: Path, domain: str) -> bytes:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from assistant.priors.sru import encoder_checkpoint_path as p; "
            f"sys.stdout.buffer.write(p({domain!r}).with_suffix('.pt').read_bytes())",
        ],
        env=clarify_env(home),
        cwd=REPO,
        capture_output=True,
        timeout=120,
    )
    return done.stdout


def _domain_state(home: Path, name: str) -> str:
    """'absent', 'whole' (loads with labels) or 'empty' (listed as built, does not load)."""
    script = (
        "from assistant.store import KnowledgeBase, built_domains\n"
        f"if {name!r} not in built_domains(): print('absent')\n"
        "else:\n"
        f"    kb = KnowledgeBase.open({name!r}); d = kb.load_domain(); print('whole' if d.num_labels else 'empty')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=clarify_env(home), cwd=REPO, capture_output=True, text=True, timeout=300
    )
    return done.stdout.strip() if done.returncode == 0 else "empty"


def probe_first_builds(
    work: Path, kills: int, seed: int = 0, domain: str = "faq", figures: Figures | None = None
) -> Figures:
    """``kills`` first builds of bundled ``domain`` killed at a random moment or before the rename."""
    figures = figures or Figures()
    rng = np.random.default_rng(seed)
    for i in range(kills):
        home = work / f"build-{i}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        env = clarify_env(home)
        if i % 2:
            env[FAULT_ENV] = "domain-build:before-rename"
        proc = subprocess.Popen(
            clarify_command("domain", "build", domain),
            env=env,
            cwd=home,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not i % 2:
            time.sleep(float(rng.uniform(1.0, 14.0)))  # from start-up to the end of a build on two cores
            proc.kill()
        proc.wait(timeout=600)
        figures.build_kills += 1
        state = _domain_state(home, domain)
        if state == "empty":
            figures.empty_built += 1
            figures.failures.append(
                f"first build killed ({'fault point' if i % 2 else 'random'}): empty domain listed as built"
            )
        again = subprocess.run(
            clarify_command("domain", "build", domain), env=clarify_env(home), cwd=home, capture_output=True
        )
        left = [p.name for p in (home / "domains").iterdir() if ".building-" in p.name]
        if again.returncode != 0 or _domain_state(home, domain) != "whole" or left:
            figures.unhealed += 1
            figures.failures.append(f"the build after a kill: exit {again.returncode}, left {left}")
        shutil.rmtree(home, ignore_errors=True)
    return figures


def probe_concurrent_launches(work: Path, pairs: int, domain: str = "faq", figures: Figures | None = None) -> Figures:
    """``pairs`` times two `clarify prepare DOMAIN` at once in a fresh home: both end well, the domain is whole."""
    figures = figures or Figures()
    for i in range(pairs):
        home = work / f"launch-{i}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        procs = [
            subprocess.Popen(
                clarify_command("prepare", domain),
                env=clarify_env(home),
                cwd=home,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for _ in range(2)
        ]
        codes = [p.wait(timeout=1800) for p in procs]
        figures.concurrent_launches += 2
        state = _domain_state(home, domain)
        if codes != [0, 0] or state != "whole":
            figures.launch_failures += 1
            errors = [p.stderr.read().decode()[-200:] for p in procs if p.stderr is not None]  # stderr=PIPE
            figures.failures.append(f"two first launches: exits {codes}, domain {state}: {errors}")
        shutil.rmtree(home, ignore_errors=True)
    return figures
