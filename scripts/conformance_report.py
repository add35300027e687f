#!/usr/bin/env python3
"""Per-case report of NVIDIA's cuda_tile conformance suite run with tileir's tools.

    python3 scripts/conformance_report.py [/path/to/cuda-tile/test] [--tools target/debug]

The suite defaults to ../shared/conformance/cuda-tile-13.3.2/test. Files tileir does not
pass on purpose are listed, with reasons, in KNOWN_DIFFERENCES of
crates/tileir-tools/tests/conformance.rs (the CI test, which runs whole files as lit does).

`-verify-diagnostics` files are counted per `// -----` chunk (each chunk is run on its
own, padded with blank lines so line numbers stay those of the whole file); every other
file counts as one case, run through `cargo test -p tileir-tools --test conformance`'s
runner semantics (here: the RUN lines, executed with our tools first on PATH).
The suite itself is not part of this repository.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


def chunks(text):
    out, start, cur = [], 0, []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^// -{5}\s*$", line.rstrip()):
            out.append((start, "\n".join(cur)))
            start, cur = i + 1, []
        else:
            cur.append(line)
    out.append((start, "\n".join(cur)))
    return out


def run_lines(text):
    runs, cur = [], ""
    for line in text.splitlines():
        m = re.match(r"^//\s*RUN:\s?(.*)$", line)
        if m:
            part = m.group(1)
            if part.endswith("\\"):
                cur += part[:-1]
                continue
            runs.append(cur + part)
            cur = ""
    return runs


def main():
    ap = argparse.ArgumentParser()
    repo = Path(__file__).resolve().parent.parent
    ap.add_argument("root", nargs="?", default=str(repo.parent / "shared" / "conformance" / "cuda-tile-13.3.2" / "test"),
                    help="the suite's test/ directory (default: ../shared/conformance/cuda-tile-13.3.2/test)")
    ap.add_argument("--tools", default=str(Path(__file__).resolve().parent.parent / "target" / "debug"))
    ap.add_argument("--show", type=int, default=0, help="print the first N failing chunks' errors per file")
    args = ap.parse_args()
    root = Path(args.root)
    # Absolute: the shim directory below links NVIDIA's tool names to these binaries.
    tools = Path(args.tools).resolve()
    opt = tools / "tileir-opt"
    total_pass = total = 0
    for f in sorted(root.rglob("*.mlir")):
        text = f.read_text()
        runs = run_lines(text)
        vd = [r for r in runs if "-verify-diagnostics" in r]
        if vd:
            # shlex keeps a quoted option value (`--opt="a b"`) in one argument, as lit's shell does.
            flags = [t for t in shlex.split(vd[0]) if t.startswith("-") and t not in ("-verify-diagnostics", "-split-input-file", "--split-input-file")]
            passed = n = 0
            shown = 0
            for start, body in chunks(text):
                if "expected-" not in body and not body.strip():
                    continue
                n += 1
                with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as tmp:
                    tmp.write("\n" * start + body)
                    name = tmp.name
                # The RUN line's own tool: some suites verify the bytecode writer's diagnostics.
                tool = tools / ("tileir-translate" if "cuda-tile-translate" in vd[0] else "tileir-opt")
                r = subprocess.run([str(tool), "-verify-diagnostics", *flags, name], capture_output=True, text=True)
                os.unlink(name)
                if r.returncode == 0:
                    passed += 1
                elif shown < args.show:
                    shown += 1
                    print(f"  --- {f.name} chunk at line {start + 1}:\n" + "\n".join("    " + l for l in r.stderr.splitlines()[:6]))
            print(f"{f.relative_to(root)}: {passed}/{n} chunks")
            total_pass += passed
            total += n
        else:
            # NVIDIA's tool names resolve to ours (round_trip_test.sh calls them by name).
            shim = Path(tempfile.mkdtemp(prefix="tileir-conformance-bin-"))
            for theirs, ours in (("cuda-tile-opt", "tileir-opt"), ("cuda-tile-translate", "tileir-translate")):
                (shim / theirs).symlink_to(tools / ours)
            env = dict(os.environ, PATH=f"{shim}:{tools}:{os.environ.get('PATH', '')}")
            ok = True
            with tempfile.TemporaryDirectory() as tmpdir:
                for r in runs:
                    round_trip = next(root.rglob("round_trip_test.sh"), f.parent / "round_trip_test.sh")
                    cmd = (r.replace("%round_trip_test", f"bash {round_trip}")
                           .replace("%s", str(f)).replace("%S", str(f.parent)).replace("%t", os.path.join(tmpdir, "t"))
                           .replace("cuda-tile-opt", "tileir-opt").replace("cuda-tile-translate", "tileir-translate")
                           .replace("FileCheck", "tileir-filecheck"))
                    cmd = re.sub(r"(^|\|)\s*not\s+", r"\1 tileir-not ", cmd)
                    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, env=env)
                    if p.returncode != 0:
                        ok = False
                        if args.show:
                            print("  --- " + f.name + ": " + "\n    ".join(p.stderr.splitlines()[:8]))
                        break
            print(f"{f.relative_to(root)}: {'PASS' if ok else 'FAIL'}")
            total_pass += ok
            total += 1
    print(f"TOTAL: {total_pass}/{total} cases")


if __name__ == "__main__":
    sys.exit(main())
