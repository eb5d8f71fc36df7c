//! rgdev's compiler against NVIDIA's ptxas: the registers and shared memory of every kernel
//! in `kernels/`, compared with ptxas 12.9's `-v` figures (`tests/data/ptxas-sm70.tsv`,
//! measured outside the repository), and the occupancy both give under gv100's rule.

use hw::occupancy::{Rule, SmLimits, blocks_per_sm};

/// Per kernel, rgdev may use at most this many times ptxas's registers (math on sm_80: 32
/// against 28; the JIT's count is one for every architecture) ...
const LIMIT: f64 = 1.15;
/// ... and at least this many times (poly: 10 against 12, where ptxas holds a literal and
/// multiplies by `RZ`).
const FLOOR: f64 = 0.8;
/// The geometric mean of the ratios must stay at or below this.
const MEAN_LIMIT: f64 = 1.10;
/// ... and at or above this: registers as the part allocates them (ptxas's ABI included),
/// not fewer (issue 39 asks for 0.9).
const MEAN_FLOOR: f64 = 0.9;
/// The mean of |ln(rgdev / ptxas)| over the kernels must stay at or below this (0.24 with
/// the PTX's order and the lowest free registers; 0.06-0.08 now).
const MEAN_ERROR: f64 = 0.10;

struct Figure {
    file: String,
    entry: String,
    regs: u32,
    smem: u32,
}

fn figures() -> Vec<Figure> {
    figures_of(include_str!("../data/ptxas-sm70.tsv"))
}

fn figures_of(text: &str) -> Vec<Figure> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Figure { file: f[0].into(), entry: f[1].into(), regs: f[2].parse().unwrap(), smem: f[3].parse().unwrap() }
        })
        .collect()
}

#[test]
fn registers_and_shared_memory_against_ptxas() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let gv100 = SmLimits { threads: 2048, blocks: 32, regs: 65536, shared: 96 * 1024, rule: Rule::VOLTA };
    let figs: Vec<Figure> = figures().into_iter().filter(|g| !g.file.starts_with("gen:")).collect();
    assert!(figs.len() >= 21, "every kernel of kernels/ has a figure");
    // Every kernel file has its figures.
    for f in std::fs::read_dir(root.join("kernels")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "ptx") {
            let name = format!("kernels/{}", p.file_name().unwrap().to_str().unwrap());
            assert!(figs.iter().any(|g| g.file == name), "{name} has no ptxas figures");
        }
    }
    let (mut log_sum, mut error) = (0.0, 0.0);
    let mut report = String::new();
    for g in &figs {
        let src = std::fs::read_to_string(root.join(&g.file)).unwrap();
        let prog = ptx::compile_ptx(&src).unwrap_or_else(|e| panic!("{}: {e}", g.file));
        let k = prog.kernel(&g.entry).unwrap_or_else(|| panic!("{} has no {}", g.file, g.entry));
        let ratio = k.regs as f64 / g.regs as f64;
        log_sum += ratio.ln();
        error += ratio.ln().abs();
        report += &format!("{:<14} rgdev {:>3}  ptxas {:>3}  {ratio:.2}\n", g.entry, k.regs, g.regs);
        assert!(
            (FLOOR..=LIMIT).contains(&ratio),
            "{}: {} registers, ptxas {} ({ratio:.2}x > {LIMIT})\n{report}",
            g.entry,
            k.regs,
            g.regs
        );
        assert_eq!(k.shared_bytes, g.smem, "{}: static shared memory", g.entry);
        for threads in [256, 1024] {
            let ours = blocks_per_sm(&gv100, threads, k.regs, k.shared_bytes);
            let theirs = blocks_per_sm(&gv100, threads, g.regs, g.smem);
            assert!(ours >= theirs, "{} at {threads} threads: {ours} blocks per SM, ptxas's code {theirs}", g.entry);
        }
    }
    let mean = (log_sum / figs.len() as f64).exp();
    let error = error / figs.len() as f64;
    println!("{report}geometric mean {mean:.3}, mean |ln ratio| {error:.3}");
    assert!((MEAN_FLOOR..=MEAN_LIMIT).contains(&mean), "geometric mean {mean:.3}\n{report}");
    assert!(error <= MEAN_ERROR, "mean |ln ratio| {error:.3}\n{report}");
}

/// The generated kernels that exist to put pressure on registers (`tests::pressure`):
/// (name in `tests/data/ptxas-sm70.tsv`, entry, PTX).
fn generated() -> Vec<(&'static str, &'static str, String)> {
    use tests::pressure::*;
    vec![
        ("gen:live(40)", "live", live(40)),
        ("gen:live(300)", "live", live(300)),
        ("gen:wide", "wide", wide()),
        ("gen:chase(64,hold)", "chase", chase(64, true)),
        ("gen:chase(64)", "chase", chase(64, false)),
        ("gen:three", "three", format!("{HDR}{}{}", funcs(), caller("three", &["f", "g", "h"]))),
    ]
}

/// The same comparison for the generated test kernels. `RGDEV_PTX_DUMP=DIR` writes their
/// PTX to DIR (one file per row) to measure ptxas on them.
#[test]
fn generated_test_kernels_against_ptxas() {
    let figs = figures();
    if let Ok(dir) = std::env::var("RGDEV_PTX_DUMP") {
        for (name, _, src) in generated() {
            std::fs::write(std::path::Path::new(&dir).join(format!("{}.ptx", &name[4..])), src).unwrap();
        }
    }
    let mut report = String::new();
    for (name, entry, src) in generated() {
        let g =
            figs.iter().find(|g| g.file == name && g.entry == entry).unwrap_or_else(|| panic!("no figures for {name}"));
        let k = ptx::compile_ptx(&src).unwrap().kernel(entry).unwrap().clone();
        let ratio = k.regs as f64 / g.regs as f64;
        report += &format!("{name:<20} rgdev {:>3}  ptxas {:>3}  {ratio:.2}\n", k.regs, g.regs);
        assert!(ratio <= LIMIT, "{name}: {} registers, ptxas {}\n{report}", k.regs, g.regs);
        assert_eq!(k.shared_bytes, g.smem, "{name}: static shared memory");
    }
    println!("{report}");
}

/// Ampere's and Hopper's ptxas on the same kernels (`tests/data/ptxas-sm80.tsv`,
/// `ptxas-sm90.tsv`): rgdev's registers per kernel against each, with the same bounds, and
/// the table docs/fidelity.md prints (`cargo test --test ptxas_figures -- --nocapture`).
#[test]
fn registers_against_ptxas_for_ampere_and_hopper() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let arches = [
        ("sm_70", figures()),
        ("sm_80", figures_of(include_str!("../data/ptxas-sm80.tsv"))),
        ("sm_90", figures_of(include_str!("../data/ptxas-sm90.tsv"))),
    ];
    let mut table = String::from("| kernel | rgdev | ptxas sm_70 | sm_80 | sm_90 |\n|---|---:|---:|---:|---:|\n");
    let (mut logs, mut errors) = ([0.0f64; 3], [0.0f64; 3]);
    let base: Vec<&Figure> = arches[1].1.iter().collect();
    assert!(base.len() >= 21, "every kernel of kernels/ but the PTX 1.4 one");
    for g in &base {
        let src = std::fs::read_to_string(root.join(&g.file)).unwrap();
        let prog = ptx::compile_ptx(&src).unwrap();
        let regs = prog.kernel(&g.entry).unwrap().regs;
        let mut row = format!("| {} | {regs} |", g.entry);
        for (k, (arch, figs)) in arches.iter().enumerate() {
            let f = figs.iter().find(|f| f.file == g.file && f.entry == g.entry).unwrap();
            let ratio = regs as f64 / f.regs as f64;
            assert!(
                (FLOOR..=LIMIT).contains(&ratio),
                "{} on {arch}: {regs} registers, ptxas {} ({ratio:.2}x)",
                g.entry,
                f.regs
            );
            assert_eq!(prog.kernel(&g.entry).unwrap().shared_bytes, f.smem, "{} on {arch}", g.entry);
            logs[k] += ratio.ln();
            errors[k] += ratio.ln().abs();
            row += &format!(" {} |", f.regs);
        }
        table += &row;
        table.push('\n');
    }
    let means: Vec<f64> = logs.iter().map(|l| (l / base.len() as f64).exp()).collect();
    let errors: Vec<f64> = errors.iter().map(|e| e / base.len() as f64).collect();
    println!(
        "{table}geometric mean of rgdev / ptxas: sm_70 {:.2}, sm_80 {:.2}, sm_90 {:.2}; mean |ln ratio|: {:.3}, {:.3}, {:.3}",
        means[0], means[1], means[2], errors[0], errors[1], errors[2]
    );
    assert!(means.iter().all(|m| (MEAN_FLOOR..=MEAN_LIMIT).contains(m)), "{means:?}");
    assert!(errors.iter().all(|&e| e <= MEAN_ERROR), "{errors:?}");
}

/// The kernel `tests/data/ptxas-sequences.tsv` was measured on: two values of type `ty`
/// loaded, `op` applied (`%v3` from `%v1`, `%v2`), the result stored.
fn sequence_kernel(ty: &str, op: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{{\n .reg .b64 %rd<4>;\n\
         .reg .{ty} %v<4>;\n ld.param.u64 %rd1, [p];\n ld.global.{ty} %v1, [%rd1];\n\
         ld.global.{ty} %v2, [%rd1+16];\n {op}\n st.global.{ty} [%rd1+32], %v3;\n ret;\n}}\n"
    )
}

/// Division, square root, reciprocal and integer division are one instruction on the
/// device and a sequence on the real part: the registers the sequence holds are counted
/// (`hw::isa::Op::sequence_regs`), so each kernel is within two registers of ptxas's.
#[test]
fn sequences_hold_the_registers_ptxas_gives_them() {
    let mut report = String::new();
    let mut worst = 0i64;
    for l in include_str!("../data/ptxas-sequences.tsv").lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        let theirs: i64 = f[2].parse().unwrap();
        let k = ptx::compile_ptx(&sequence_kernel(f[0], f[1])).unwrap().kernels[0].clone();
        report += &format!("{:<34} rgdev {:>3}  ptxas {theirs:>3}\n", f[1], k.regs);
        worst = worst.max((k.regs as i64 - theirs).abs());
    }
    println!("{report}");
    assert!(worst <= 2, "a sequence's kernel differs from ptxas's by {worst} registers\n{report}");
}
