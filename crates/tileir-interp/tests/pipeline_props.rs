//! Property test of software pipelining: random loop bodies (loads at induction-variable
//! dependent tiles, loads the pass must leave alone because their index is loop-carried,
//! random float arithmetic with recurrences through several accumulators) interpret the
//! same before and after `tileas-materialize-async`, `tileas-unspecialized-pipeline` at 2–4
//! stages, and the general backend's `tileas-pipelines-to-registers`, for trip counts 0, 1,
//! stages − 1, stages and more.

mod lowering;

use lowering::{lower, parse};
use proptest::prelude::*;
use tileir_interp::{run_entry, ArgValue, Memory, RunOptions};
use tileir_ir::Module;

const PV: &str = "partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>";

#[derive(Clone, Debug)]
struct Body {
    /// Loads: (multiplier, offset) of the tile index `i·m + o`, or `None` for a load at the
    /// loop-carried counter (not issuable ahead).
    loads: Vec<Option<(i64, i64)>>,
    /// Accumulators (carried values).
    accs: usize,
    /// Steps: (op, lhs, rhs), operands indexing [accs…, loads…, earlier steps…].
    steps: Vec<(u8, usize, usize)>,
    /// Which value each accumulator takes at the end of the body.
    next: Vec<usize>,
}

fn body() -> impl Strategy<Value = Body> {
    (1usize..4, 1usize..4, proptest::collection::vec(prop::option::weighted(0.8, (1i64..3, 0i64..3)), 1..4))
        .prop_flat_map(|(accs, nsteps, loads)| {
            let n_in = accs + loads.len();
            let steps = (0..nsteps)
                .map(|k| (0u8..4, 0..n_in + k, 0..n_in + k))
                .collect::<Vec<_>>();
            let total = n_in + nsteps;
            (Just(accs), Just(loads), steps, proptest::collection::vec(0..total, accs))
        })
        .prop_map(|(accs, loads, steps, next)| Body { loads, accs, steps, next })
}

/// The kernel text of `b`: `x` is read through 16-element tiles, the accumulators are
/// stored to `y[16·k …]`.
fn kernel(b: &Body) -> String {
    let mut s = String::new();
    s.push_str("cuda_tile.module @kernels {\n  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %n: tile<i32>, %len: tile<i32>) {\n");
    s.push_str("    %tx = make_tensor_view %x, shape = [%len], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>\n");
    s.push_str(&format!("    %px = make_partition_view %tx : {PV}\n"));
    s.push_str("    %ty = make_tensor_view %y, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>\n");
    s.push_str("    %py = make_partition_view %ty : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>\n");
    s.push_str("    %c0 = constant <i32: 0> : tile<i32>\n    %c1 = constant <i32: 1> : tile<i32>\n");
    for k in 0..3 {
        s.push_str(&format!("    %k{k} = constant <i32: {k}> : tile<i32>\n"));
    }
    for a in 0..b.accs {
        s.push_str(&format!("    %init{a} = constant <f32: {}.5> : tile<16xf32>\n", a));
    }
    let inits: Vec<String> = (0..b.accs).map(|a| format!("%a{a} = %init{a}")).collect();
    let tys: Vec<&str> = (0..b.accs).map(|_| "tile<16xf32>").collect();
    s.push_str(&format!(
        "    %r:{} = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values({}, %cnt = %c0) -> ({}, tile<i32>) {{\n",
        b.accs + 1,
        inits.join(", "),
        tys.join(", ")
    ));
    let mut vals: Vec<String> = (0..b.accs).map(|a| format!("%a{a}")).collect();
    for (j, l) in b.loads.iter().enumerate() {
        let idx = match l {
            Some((m, o)) => {
                s.push_str(&format!("      %m{j} = muli %i, %k{m} : tile<i32>\n      %ix{j} = addi %m{j}, %k{o} : tile<i32>\n"));
                format!("%ix{j}")
            }
            None => "%cnt".to_string(),
        };
        s.push_str(&format!("      %l{j}, %lt{j} = load_view_tko weak %px[{idx}] : {PV}, tile<i32> -> tile<16xf32>, token\n"));
        vals.push(format!("%l{j}"));
    }
    for (k, &(op, x, y)) in b.steps.iter().enumerate() {
        let name = ["addf", "subf", "mulf", "maxf"][op as usize];
        s.push_str(&format!("      %s{k} = {name} {}, {} : tile<16xf32>\n", vals[x], vals[y]));
        vals.push(format!("%s{k}"));
    }
    let next: Vec<String> = b.next.iter().map(|&v| vals[v].clone()).collect();
    s.push_str("      %cnt2 = addi %cnt, %c1 : tile<i32>\n");
    s.push_str(&format!("      continue {}, %cnt2 : {}, tile<i32>\n    }}\n", next.join(", "), tys.join(", ")));
    for a in 0..b.accs {
        s.push_str(&format!(
            "    %st{a} = store_view_tko weak %r#{a}, %py[%k{a}] : tile<16xf32>, partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token\n"
        ));
    }
    s.push_str("    return\n  }\n}\n");
    s
}

fn run(module: &Module, n: i32) -> Vec<u8> {
    // Tile indices reach 2·n + 2 < 2·9 + 3: the input holds that many tiles.
    let tiles: i32 = 2 * 9 + 3;
    let x: Vec<u8> = (0..16 * tiles as usize).flat_map(|i| (((i * 37) % 23) as f32 * 0.25 - 2.0).to_le_bytes()).collect();
    let mut mem = Memory::new();
    let px = mem.alloc_vec(x, 16);
    let py = mem.alloc_vec(vec![0; 64 * 4], 16);
    let args = [ArgValue::Ptr(px), ArgValue::Ptr(py), ArgValue::i32(n), ArgValue::i32(16 * tiles)];
    run_entry(module, "k", [1, 1, 1], &args, &mut mem, &RunOptions::default()).unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let mut out = vec![0u8; 64 * 4];
    mem.read(py, &mut out).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn pipelined_loops_compute_what_the_source_computes(b in body()) {
        let text = kernel(&b);
        let source = parse(&text);
        let base = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async";
        let materialized = lower(&source, base);
        let producers = materialized.walk().into_iter().filter(|&o| {
            matches!(materialized.ops[o].kind, tileir_ir::OpKind::TileAs(tileir_ir::TileAsOp::ProduceOneAsync(_)))
        }).count();
        // Loads at i·m + o are issuable ahead; loads at the carried counter are not.
        prop_assert_eq!(producers, usize::from(b.loads.iter().any(|l| l.is_some())));
        let mut variants = vec![materialized];
        for stages in 2..=4 {
            let p = format!("{base},tileas-unspecialized-pipeline{{num-stages={stages}}}");
            let pipelined = lower(&source, &p);
            variants.push(lower(&pipelined, "tileas-optimize-pipeline-region,tileas-pipelines-to-registers"));
            variants.push(pipelined);
            let predicated = lower(&source, &format!("{base},tileas-unspecialized-pipeline{{num-stages={stages} peel-epilogue=false}}"));
            variants.push(lower(&predicated, "tileas-optimize-pipeline-region,tileas-pipelines-to-registers"));
            variants.push(predicated);
        }
        for n in [0, 1, 2, 3, 4, 9] {
            let want = run(&source, n);
            for (v, m) in variants.iter().enumerate() {
                prop_assert!(run(m, n) == want, "variant {} differs at trip count {}\n{}", v, n, text);
            }
        }
    }
}
