#!/usr/bin/env python3
"""Runs the shipped CI examples here, command for command: every `run:` step
of the GitHub Actions workflow (each shard of its matrix, then the merge
job), and the Kubernetes Indexed Job's command for each completion index.
`uses:` steps (checkout, toolchain, artifacts) have nothing to do on one
machine: all jobs share the working tree and its out/ folder.

usage: workflow_local.py WORKFLOW JOB_YAML [--set NAME=VALUE]... [--k8s OLD=NEW]...
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from ruamel.yaml import YAML


def die(msg):
    print(f"workflow_local: {msg}", file=sys.stderr)
    sys.exit(1)


def substitute(text, values):
    def one(m):
        key = m.group(1).strip()
        if key not in values:
            die(f"no local value for ${{{{ {key} }}}}")
        return str(values[key])

    return re.sub(r"\$\{\{([^}]*)\}\}", one, text)


def run_steps(job_name, job, env, values):
    for step in job.get("steps", []):
        if "run" not in step:
            continue
        script = substitute(step["run"], values)
        name = step.get("name", script.splitlines()[0])
        print(f"== {job_name}: {name}", flush=True)
        r = subprocess.run(["bash", "-eo", "pipefail", "-c", script], env=env)
        if r.returncode != 0:
            die(f"{job_name}: step '{name}' exited {r.returncode}")


def github(path, overrides):
    wf = YAML(typ="safe").load(open(path))
    env = dict(os.environ)
    env.update({k: str(v) for k, v in wf.get("env", {}).items()})
    env.update(overrides)
    env.pop("GITHUB_STEP_SUMMARY", None)
    shutil.rmtree("out", ignore_errors=True)
    shards = wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    if [int(s) for s in shards] != list(range(int(env["DST_SHARDS"]))):
        die(f"the matrix {shards} does not match DST_SHARDS={env['DST_SHARDS']}")
    for s in shards:
        run_steps(f"shard {s}", wf["jobs"]["shard"], env, {"matrix.shard": s})
    run_steps("merge", wf["jobs"]["merge"], env, {})
    for f in ["out/fuzz.xml", "out/fuzz.json"]:
        if not os.path.exists(f):
            die(f"the merge job left no {f}")


def kubernetes(path, overrides, dst):
    job = YAML(typ="safe").load(open(path))
    spec = job["spec"]
    if job["kind"] != "Job" or spec.get("completionMode") != "Indexed":
        die("not an Indexed Job")
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container.get("env", [])}
    if int(env["DST_SHARDS"]) != spec["completions"]:
        die("DST_SHARDS differs from completions")
    command = container["command"] + container["args"]
    out = tempfile.mkdtemp(prefix="dst-k8s-")
    bindir = tempfile.mkdtemp(prefix="dst-bin-")
    os.symlink(os.path.abspath(dst), os.path.join(bindir, "dst"))
    # The job's own seed range and budget would take hours here: overrides
    # are literal replacements in its command.
    script = command[-1].replace("/out", out)
    for old, new in overrides.items():
        if old not in script:
            die(f"'{old}' is not in the job's command")
        script = script.replace(old, new)
    for i in range(spec["completions"]):
        penv = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], JOB_COMPLETION_INDEX=str(i), **env)
        r = subprocess.run(command[:-1] + [script], env=penv)
        if r.returncode != 0:
            die(f"pod {i} exited {r.returncode}")
    summaries = sorted(os.path.join(out, f) for f in os.listdir(out) if f.startswith("shard-"))
    if len(summaries) != spec["completions"]:
        die(f"{len(summaries)} summaries for {spec['completions']} pods")
    r = subprocess.run([dst, "merge", *summaries])
    if r.returncode != 0:
        die(f"merging the pods' summaries exited {r.returncode}")
    shutil.rmtree(out)
    shutil.rmtree(bindir)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        die(__doc__.strip().splitlines()[-1])
    overrides = {}
    k8s_overrides = {}
    rest = args[2:]
    while rest:
        if rest[0] == "--set" and len(rest) > 1 and "=" in rest[1]:
            k, v = rest[1].split("=", 1)
            overrides[k] = v
        elif rest[0] == "--k8s" and len(rest) > 1 and "=" in rest[1]:
            k, v = rest[1].split("=", 1)
            k8s_overrides[k] = v
        else:
            die(f"unknown argument {rest[0]}")
        rest = rest[2:]
    github(args[0], overrides)
    kubernetes(args[1], k8s_overrides, overrides.get("DST_BIN", "target/release/dst"))
    print("workflow_local: the workflow's and the job's commands ran and merged cleanly")


if __name__ == "__main__":
    main()
