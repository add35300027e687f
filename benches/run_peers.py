"""Print the peer side of the compile-time benchmark (Triton; cuTile Python + tileiras).

Usage (from the repository root)::

    .bench/venv/bin/python benches/run_peers.py [--repeats N] [--out-dir DIR] [--no-variants]

Besides the table it writes, into --out-dir (default: <repo>/.bench, which git ignores):

    nvidia_vadd_sm90.ptx / nvidia_vadd_sm80.ptx   NVIDIA's PTX for the cuTile vector add
    vadd.tileirbc                                  the cuTile bytecode it was compiled from
    vadd.tileir.mlir                               tileirdisasm of that bytecode (if installed)
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import peers  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ms(x) -> str:
    return "-" if x is None else f"{x * 1e3:8.2f} ms"


def row(label: str, value: str, note: str = "") -> None:
    print(f"  {label:<44} {value:>12}  {note}")


def print_ptx_summary(title: str, s: dict | None, regs=None) -> None:
    if not s:
        return
    print(f"  {title}: target {s['target']}, PTX {s['version']}, {s['lines']} lines;"
          f" reqntid={s['reqntid']} maxntid={s['maxntid']} minnctapersm={s['minnctapersm']}"
          f" maxnreg={s['maxnreg']}; regs={regs}")
    print(f"    ld.global scalar/vector={s['ld_global_scalar']}/{s['ld_global_vector']},"
          f" st.global scalar/vector={s['st_global_scalar']}/{s['st_global_vector']},"
          f" predicated ld/st={s['predicated_ld_st']}, branches={s['branches']},"
          f" block id from {s['block_id_source']}, {len(s['params'])} params")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out-dir", default=os.path.join(REPO, ".bench"))
    ap.add_argument("--no-variants", action="store_true",
                    help="skip the 'n divisible by 16' variants")
    args = ap.parse_args()
    n = args.repeats
    os.makedirs(args.out_dir, exist_ok=True)

    print(f"peer compile-time benchmark, {n} repeats, python {sys.version.split()[0]}")

    # ---------------------------------------------------------------- Triton
    print("\n[Triton] vector add fp32, BLOCK=1024, num_warps=4, target cuda:90:32, cold"
          " (fresh TRITON_CACHE_DIR per compile, warmed-up process)")
    tr = peers.triton_vector_add_cold(n)
    if "skipped" in tr:
        print(f"  skipped: {tr['skipped']}")
    else:
        print(f"  triton {tr['triton_version']}, ptxas {tr['ptxas_version']} ({tr['ptxas']})")
        row("first compile in process (throwaway)", ms(tr["first_compile_s"]))
        row("cold total, median", ms(tr["cold_median_s"]), f"(min {ms(tr['cold_min_s']).strip()})")
        for stage, t in tr["stages_median_s"].items():
            row(f"  stage {stage}, median", ms(t))
        print_ptx_summary("PTX", tr["ptx_summary"], tr["registers"])
        if not args.no_variants:
            tv = peers.triton_vector_add_cold(n, size_divisible_by_16=True)
            if "skipped" not in tv:
                row("variant n_elements div16: cold median", ms(tv["cold_median_s"]))
                print_ptx_summary("PTX (n div16)", tv["ptx_summary"], tv["registers"])

    # ---------------------------------------------------------------- cuTile + tileiras
    print("\n[cuTile Python + tileiras] vector add f32, TILE=1024, bytecode 13.3")
    ct = peers.tileiras_vector_add(n)
    if "skipped" in ct and "frontend_median_s" not in ct:
        print(f"  skipped: {ct['skipped']}")
    else:
        print(f"  cuda-tile {ct['cuda_tile_version']}, tileiras {ct.get('tileiras_version')}")
        print(f"  symbol {ct['symbol']}, bytecode {ct['bytecode_bytes']} bytes")
        row("front end first call in process", ms(ct["first_call_s"]))
        row("front end py->bytecode, median (cold HIR)", ms(ct["frontend_median_s"]),
            f"(min {ms(ct['frontend_min_s']).strip()})")
        row("front end py->bytecode, median (HIR memo)", ms(ct["frontend_hir_cached_median_s"]))
        bc_path = os.path.join(args.out_dir, "vadd.tileirbc")
        with open(bc_path, "wb") as f:
            f.write(ct["bytecode"])
        mlir = ct.get("tileir_mlir")
        if mlir:
            with open(os.path.join(args.out_dir, "vadd.tileir.mlir"), "w") as f:
                f.write(mlir)
        else:
            print("  (tileirdisasm not available: no vadd.tileir.mlir)")
        if ct.get("tileiras_skipped"):
            print(f"  tileiras skipped: {ct['tileiras_skipped']}")
        for arch, a in ct.get("archs", {}).items():
            if "error" in a:
                print(f"  {arch}: {a['error']}")
                continue
            row(f"tileiras {arch} -O3, median", ms(a["tileiras_median_s"]),
                f"(min {ms(a['tileiras_min_s']).strip()}; with --lineinfo"
                f" {ms(a['tileiras_lineinfo_median_s']).strip()})")
            if a["ptx"]:
                name = f"nvidia_vadd_{arch.replace('_', '')}.ptx"
                with open(os.path.join(args.out_dir, name), "w") as f:
                    f.write(a["ptx"])
                ptxas = peers.ptxas_resource_usage(a["ptx"], a["ptx_summary"]["target"])
                regs = ptxas.get("registers", ptxas.get("skipped") or "ptxas error")
                print_ptx_summary(f"NVIDIA PTX {arch}", a["ptx_summary"],
                                  f"{regs} (ptxas -v), {a['cubin_registers']} (cubin)")
        if not args.no_variants:
            cv = peers.tileiras_vector_add(n, shape_divisible_by=16)
            if "frontend_median_s" in cv:
                print("  variant shape_divisible_by=16 (what the JIT assumes when n % 16 == 0):")
                row("front end, median (cold HIR)", ms(cv["frontend_median_s"]))
                for arch, a in cv.get("archs", {}).items():
                    if "error" in a:
                        continue
                    row(f"tileiras {arch} -O3, median", ms(a["tileiras_median_s"]))
                    print_ptx_summary(f"NVIDIA PTX {arch} (n div16)", a["ptx_summary"],
                                      a["cubin_registers"])

    # ---------------------------------------------------------------- cuTile matmul front end
    print("\n[cuTile Python] matmul f16 128x128x32 (f32 acc), front end only")
    mm = peers.cutile_matmul_frontend(n)
    if "skipped" in mm:
        print(f"  skipped: {mm['skipped']}")
    else:
        row("front end first call in process", ms(mm["first_call_s"]))
        row("front end py->bytecode, median (cold HIR)", ms(mm["frontend_median_s"]),
            f"(min {ms(mm['frontend_min_s']).strip()})")
        row("front end py->bytecode, median (HIR memo)", ms(mm["frontend_hir_cached_median_s"]))
        row("bytecode size", f"{mm['bytecode_bytes']} B")

    print(f"\nartifacts in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
