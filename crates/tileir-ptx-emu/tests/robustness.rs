//! Malformed input never panics: mutated PTX text parses or decodes to an error with a line,
//! and whatever decodes runs to a result or an error.

use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_ptx_never_panics() {
    let base = include_str!("data/vector_add.ptx");
    let pieces = ["{", "}", ";", "[", "]", "%r1", "%rd99", "$L__BB0_1", ".reg", "@%p1", "0f7FC00000", "-", ",", "ld.global.v4.b32", "bra", "::", "|", "!", "16"];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ran = 0;
    for _ in 0..1500 {
        let mut text: Vec<char> = base.chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len());
            match rng.below(10) {
                0..=4 => {
                    let n = rng.below(12).min(text.len() - at);
                    text.drain(at..at + n);
                }
                5..=8 => {
                    let p = pieces[rng.below(pieces.len())];
                    for (i, c) in p.chars().enumerate() {
                        text.insert(at + i, c);
                    }
                }
                _ => text.truncate(at),
            }
        }
        let text: String = text.into_iter().collect();
        let Ok(m) = Module::parse(&text) else { continue };
        let Ok(p) = m.kernel(None) else { continue };
        let n = 300usize;
        let mut bufs = vec![Buffer::new("a", vec![0; n * 4]), Buffer::new("b", vec![0; n * 4]), Buffer::new("c", vec![0; n * 4])];
        let nn = n as u32;
        let args = [Arg::Buffer(0, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(1, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(2, 0), Arg::U32(nn), Arg::U32(1)];
        let cfg = LaunchConfig { grid: [1, 1, 1], block: [128, 1, 1], dyn_shared: 0, options: Options { max_warp_steps: 20_000, threads: 1, ..Options::default() }, ..LaunchConfig::default() };
        let _ = run(&p, &cfg, &args, &mut bufs);
        ran += 1;
    }
    assert!(ran > 50, "only {ran} mutants decoded");
}
