//! The ledger: cycles and statistics of a fixed set of runs — kernels of the kernel suite
//! through the Rust API on one GPU and on one logical GPU over four, and Runtime API
//! programs of `tests/cuda` on single GPUs, systems and a unified device, with managed
//! memory paged, advised and oversubscribed — compared line by line with the table
//! recorded in `tests/data/ledger.txt`. Moving code between layers (issue 38) must leave
//! every figure as it was; a change that means to move them re-records the table
//! (`RGDEV_BLESS=1 cargo test --release -p tests --test ledger`) and says why in its commit.
//!
//! Each line is one kernel or copy in the order the statistics list them (their `seq`):
//! device, start cycle, cycles, instructions, memory traffic, faults and migrations; and one
//! line per run with the simulated cycles and the unified-memory counts.

use backend_user::{Arg, Device, DeviceOptions, KernelStats, SystemConfig};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    tests::built::root()
}

fn release_dir() -> PathBuf {
    tests::built::release_dir(&["libcudart.so", "rgdev"])
}

/// The recorded table.
fn table() -> PathBuf {
    root().join("tests/data/ledger.txt")
}

/// A kernel's line from the Rust API's statistics.
fn kernel_line(run: &str, s: &KernelStats) -> String {
    format!(
        "{run} kernel grid={:?} block={:?} start={} cycles={} winst={} tinst={} dram={}/{} l1={}/{} l2={}/{} banks={} peer={}/{}",
        s.grid,
        s.block,
        s.start_cycle,
        s.cycles(),
        s.warp_instructions,
        s.thread_instructions,
        s.dram_read_bytes,
        s.dram_write_bytes,
        s.l1_hits,
        s.l1_misses,
        s.l2_hits,
        s.l2_misses,
        s.bank_conflict_cycles,
        s.peer_read_bytes,
        s.peer_write_bytes
    )
}

/// The kernel-suite kernels, at modest sizes, on `dev`: their lines.
fn suite(run: &str, dev: &Device) -> Vec<String> {
    let ctx = dev.create_context().unwrap();
    let n = 1 << 16;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let (mut da, mut db, dc) =
        (ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap(), ctx.alloc::<f32>(n).unwrap());
    da.copy_from(&a).unwrap();
    db.copy_from(&b).unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
    let args = [da.arg(), db.arg(), dc.arg(), Arg::I32(n as i32)];
    m.function("vecadd").unwrap().launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &args).unwrap();

    let s = 128usize;
    let m = ctx.load_ptx(include_str!("../../kernels/matmul.ptx")).unwrap();
    let args = [da.arg(), db.arg(), dc.arg(), Arg::I32(s as i32)];
    m.function("matmul32").unwrap().launch([4, 4, 1], [32, 32, 1], 0, &args).unwrap();

    let m = ctx.load_ptx(include_str!("../../kernels/saxpy.ptx")).unwrap();
    let args = [Arg::F32(2.5), da.arg(), db.arg(), Arg::I32(n as i32)];
    m.function("saxpy").unwrap().launch([(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &args).unwrap();

    let words: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 16).collect();
    let mut dw = ctx.alloc::<u32>(n).unwrap();
    dw.copy_from(&words).unwrap();
    let mut sum = ctx.alloc::<u32>(1).unwrap();
    sum.copy_from(&[0]).unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/reduce_sum.ptx")).unwrap();
    let args = [dw.arg(), sum.arg(), Arg::I32(n as i32)];
    m.function("reduce_sum").unwrap().launch([32, 1, 1], [256, 1, 1], 0, &args).unwrap();

    let (w, h) = (128u32, 64u32);
    let img = ctx.alloc::<u32>((w * h) as usize).unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/mandelbrot.ptx")).unwrap();
    let args = [img.arg(), Arg::I32(w as i32), Arg::I32(h as i32), Arg::I32(64)];
    m.function("mandelbrot").unwrap().launch([w / 16, h / 16, 1], [16, 16, 1], 0, &args).unwrap();
    ctx.synchronize().unwrap();

    let mut lines: Vec<String> = dev.take_kernel_stats().iter().map(|k| kernel_line(run, k)).collect();
    let cycles = dev.sim().lock().cycles();
    lines.push(format!("{run} end cycles={cycles} sum={}", sum.to_vec().unwrap()[0]));
    lines
}

/// A number field of a statistics record (0 where absent).
fn num(v: &Value, f: &str) -> u64 {
    v[f].as_u64().unwrap_or(0)
}

/// The lines of one program's statistics file.
fn program_lines(run: &str, s: &Value) -> Vec<String> {
    let mut items: Vec<(u64, String)> = Vec::new();
    for k in s["kernels"].as_array().into_iter().flatten() {
        let mut l = format!(
            "{run} kernel {} dev={} start={} cycles={} winst={} tinst={} dram={}/{} l1={}/{} l2={}/{}",
            k["name"].as_str().unwrap_or("?"),
            num(k, "device"),
            num(k, "start_cycle"),
            num(k, "cycles"),
            num(k, "warp_instructions"),
            num(k, "thread_instructions"),
            num(k, "dram_read_bytes"),
            num(k, "dram_write_bytes"),
            num(k, "l1_hits"),
            num(k, "l1_misses"),
            num(k, "l2_hits"),
            num(k, "l2_misses"),
        );
        let _ = write!(
            l,
            " faults={} mig={}/{} peer={}/{}",
            num(k, "replayable_faults"),
            num(k, "migrations_to_gpu"),
            num(k, "migrations_to_host"),
            num(k, "peer_read_bytes"),
            num(k, "peer_write_bytes")
        );
        items.push((num(k, "seq"), l));
    }
    for c in s["copies"].as_array().into_iter().flatten() {
        let l = format!(
            "{run} copy {} dev={} start={} end={} bytes={} path={}",
            c["kind"].as_str().unwrap_or("?"),
            num(c, "device"),
            num(c, "start_cycle"),
            num(c, "end_cycle"),
            num(c, "bytes"),
            c["path"].as_str().unwrap_or("?")
        );
        items.push((num(c, "seq"), l));
    }
    // Per device, records in the order they were made (a system's GPUs number their
    // records on their own).
    let dev_of = |l: &str| l.split(" dev=").nth(1).and_then(|t| t.split(' ').next()).unwrap_or("0").to_string();
    items.sort_by(|a, b| dev_of(&a.1).cmp(&dev_of(&b.1)).then(a.0.cmp(&b.0)));
    let mut lines = condense(run, items.into_iter().map(|(_, l)| l).collect());
    let u = &s["unified_memory"];
    lines.push(format!(
        "{run} end cycles={} uvm={}/{}/{}",
        num(&s["host"], "simulated_cycles"),
        num(u, "migrations_to_gpu"),
        num(u, "migrations_to_host"),
        num(u, "evictions")
    ));
    lines
}

/// Sums by figure name (a figure may be several numbers: `dram=read/write`).
type Figures = Vec<(String, Vec<u64>)>;

/// Records a run shows in full; the rest are summed per kernel or copy kind.
const IN_FULL: usize = 48;

/// `lines` of run `run` as the table keeps them: the first [`IN_FULL`] as they are; for the
/// rest, per kernel name or copy kind and device, the count and the sum of every figure;
/// and a hash (FNV-1a) of all of them, so that no change hides in the sums.
fn condense(run: &str, lines: Vec<String>) -> Vec<String> {
    if lines.len() <= IN_FULL {
        return lines;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in lines.iter().flat_map(|l| l.bytes().chain([b'\n'])) {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    // (what, its sums by figure name, count), in order of first appearance.
    let mut sums: Vec<(String, Figures, u64)> = Vec::new();
    for l in &lines[IN_FULL..] {
        let mut words = l.split(' ').skip(1);
        let what: Vec<&str> = words.by_ref().take(2).collect();
        let mut figures = Vec::new();
        let mut dev = String::new();
        for w in words {
            let Some((k, v)) = w.split_once('=') else { continue };
            if k == "dev" || k == "path" {
                dev.push_str(&format!(" {w}"));
                continue;
            }
            let parts: Option<Vec<u64>> = v.split('/').map(|x| x.parse().ok()).collect();
            if let Some(p) = parts {
                figures.push((k.to_string(), p));
            }
        }
        let key = format!("{}{dev}", what.join(" "));
        let at = match sums.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                sums.push((key, figures.iter().map(|(k, p)| (k.clone(), vec![0; p.len()])).collect(), 0));
                sums.len() - 1
            }
        };
        let entry = &mut sums[at];
        entry.2 += 1;
        for ((_, total), (_, p)) in entry.1.iter_mut().zip(&figures) {
            for (t, x) in total.iter_mut().zip(p) {
                *t = t.wrapping_add(*x);
            }
        }
    }
    let mut out: Vec<String> = lines[..IN_FULL].to_vec();
    for (key, figures, count) in sums {
        let mut l = format!("{run} then {key} count={count}");
        for (k, total) in figures {
            let t: Vec<String> = total.iter().map(u64::to_string).collect();
            let _ = write!(l, " {k}+={}", t.join("/"));
        }
        out.push(l);
    }
    out.push(format!("{run} all {} records hash={hash:016x}", lines.len()));
    out
}

/// `rgdev cc tests/cuda/NAME.cu -o DIR/NAME`.
fn compile(dir: &Path, name: &str) -> PathBuf {
    let exe = dir.join(name);
    if exe.exists() {
        return exe;
    }
    tests::built::compile_cuda(name, &[], &exe);
    exe
}

/// Run `exe` on `preset` with its statistics written; they, as lines.
fn run_program(dir: &Path, exe: &Path, preset: &str) -> Vec<String> {
    let run = format!(
        "{}@{}",
        exe.file_name().unwrap().to_string_lossy(),
        Path::new(preset).file_stem().unwrap().to_string_lossy()
    );
    let json = dir.join(format!("{run}.json"));
    let out = Command::new(exe)
        .env("LD_LIBRARY_PATH", release_dir())
        .env("RGDEV_PRESET", preset)
        .env("RGDEV_UVM", "paging")
        .env("RGDEV_STATS_JSON", &json)
        .output()
        .expect("the program runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("all checks passed"),
        "{run}: {}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    program_lines(&run, &s)
}

/// Every line of the ledger, in a fixed order.
fn ledger() -> Vec<String> {
    let mut lines = Vec::new();
    let one = Device::open_with(DeviceOptions::default()).unwrap();
    lines.extend(suite("suite@gv100", &one));
    drop(one);
    let sys = SystemConfig::preset("gv100x4u").unwrap();
    let four = Device::open_unified(sys, &DeviceOptions::default()).unwrap();
    lines.extend(suite("suite@gv100x4u", &four));
    drop(four);

    let dir = std::env::temp_dir().join(format!("rgdev-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("small16.toml");
    std::fs::write(&small, "base = \"gv100\"\n[board]\nvram_size = 16777216\n").unwrap();
    let small = small.to_str().unwrap().to_string();
    let runs: &[(&str, &str)] = &[
        ("vecadd", "gv100"),
        ("matmul", "gv100"),
        ("streams", "gv100"),
        ("managed", "gv100"),
        ("advise", "gv100"),
        ("uva", "gv100"),
        ("advise_peers", "gv100x2"),
        ("multigpu", "gv100x4"),
        ("oversub", &small),
        ("preferred", &small),
        ("vecadd", "gv100x4u"),
        ("matmul", "gv100x4u"),
        ("managed", "gv100x4u"),
        ("uva", "gv100x4u"),
        ("streams", "gv100x4u"),
    ];
    for &(name, preset) in runs {
        let exe = compile(&dir, name);
        lines.extend(run_program(&dir, &exe, preset));
    }
    let _ = std::fs::remove_dir_all(&dir);
    lines
}

#[test]
fn cycles_and_statistics_match_the_recorded_table() {
    let now = ledger();
    let path = table();
    if std::env::var_os("RGDEV_BLESS").is_some() {
        std::fs::write(&path, now.join("\n") + "\n").unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("tests/data/ledger.txt (RGDEV_BLESS=1 records it)");
    let recorded: Vec<&str> = recorded.lines().collect();
    let mut diffs = Vec::new();
    for i in 0..now.len().max(recorded.len()) {
        let (a, b) = (recorded.get(i).copied().unwrap_or("<none>"), now.get(i).map_or("<none>", String::as_str));
        if a != b {
            diffs.push(format!("line {}:\n  recorded {a}\n  now      {b}", i + 1));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} lines differ from tests/data/ledger.txt (first 20):\n{}",
        diffs.len(),
        now.len(),
        diffs[..diffs.len().min(20)].join("\n")
    );
}
