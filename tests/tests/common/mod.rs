//! Helpers of the Runtime API program tests (`runtime_programs.rs`, `runtime_memory.rs`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    tests::built::root()
}

pub fn release_dir() -> PathBuf {
    tests::built::release_dir(&["libcudart.so", "rgdev"])
}

pub fn rgdev() -> Command {
    Command::new(release_dir().join("rgdev"))
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rgdev-rt-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `rgdev cc tests/cuda/NAME.cu EXTRA... -o DIR/NAME`; the executable's path.
pub fn compile(name: &str, extra: &[&str]) -> PathBuf {
    compile_in(name, name, extra)
}

/// [`compile`] into a scratch directory of its own, `tag` (tests that build the same
/// program run in parallel, and each removes its directory at its end).
pub fn compile_in(tag: &str, name: &str, extra: &[&str]) -> PathBuf {
    let dir = scratch(tag);
    let exe = dir.join(name);
    tests::built::compile_cuda(name, extra, &exe);
    exe
}

/// `rgdev run --preset PRESET --stats-json JSON --trace TRACE -- EXE` with managed memory
/// paged (`RGDEV_UVM=paging`), which must succeed: its stdout, the statistics and the trace.
pub fn run_with_stats(
    exe: &Path,
    preset: &str,
    json: &Path,
    trace: &Path,
) -> (String, serde_json::Value, serde_json::Value) {
    let out = rgdev()
        .env("RGDEV_UVM", "paging")
        .args(["run", "--preset", preset, "--stats-json"])
        .arg(json)
        .arg("--trace")
        .arg(trace)
        .arg("--")
        .arg(exe)
        .output()
        .expect("rgdev run runs");
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    (o, read_json(json), read_json(trace))
}

/// `rgdev timeline TRACE -o SVG`, which must succeed: the SVG.
pub fn timeline(trace: &Path) -> String {
    let svg = trace.with_extension("svg");
    let out = rgdev().arg("timeline").arg(trace).arg("-o").arg(&svg).output().expect("rgdev timeline runs");
    assert!(out.status.success(), "{:?}", text(&out));
    std::fs::read_to_string(&svg).unwrap()
}

/// Run a program that prints "all checks passed"; its stdout.
pub fn run_ok(exe: &Path, env: &[(&str, &str)]) -> String {
    let out = Command::new(exe).envs(env.iter().copied()).output().expect("the program runs");
    let (o, e) = text(&out);
    assert!(
        out.status.success() && o.contains("all checks passed"),
        "{} failed ({}):\n{o}{e}",
        exe.display(),
        out.status
    );
    o
}

/// A JSON file a run wrote (statistics, trace).
pub fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// [`run_ok`] with `env` and the statistics file (`RGDEV_STATS_JSON`, `stats.json` beside
/// `exe`): what it printed, and the statistics.
pub fn run_stats(exe: &Path, env: &[(&str, &str)]) -> (String, serde_json::Value) {
    let json = exe.parent().unwrap().join("stats.json");
    let mut env = env.to_vec();
    env.push(("RGDEV_STATS_JSON", json.to_str().unwrap()));
    let out = run_ok(exe, &env);
    (out, read_json(&json))
}

/// The first kernel record of the statistics named `name`.
pub fn kernel<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["kernels"].as_array().unwrap().iter().find(|k| k["name"] == name).expect(name)
}

pub fn program(name: &str, extra: &[&str]) {
    let exe = compile(name, extra);
    run_ok(&exe, &[]);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Build `tests/cuda/NAME.cu`, run it in timing mode and in functional mode (which runs a
/// block's warps in turn, each until it spins: another order), and check that each output
/// says `expect`.
pub fn both_modes(name: &str, extra: &[&str], expect: &str) {
    let exe = compile(name, extra);
    assert!(run_ok(&exe, &[]).contains(expect));
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    assert!(run_ok(&exe, &[("RGDEV_PRESET", toml.to_str().unwrap())]).contains(expect));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// What Perfetto's JSON importer needs of a trace (its trace processor cannot be fetched
/// here): known phases with their fields, and complete slices of one thread properly
/// nested (a partial overlap is dropped on import).
pub fn check_trace_schema(t: &serde_json::Value) -> Vec<serde_json::Value> {
    let events = t["traceEvents"].as_array().expect("traceEvents").clone();
    let mut slices: std::collections::BTreeMap<(u64, u64), Vec<Slice>> = Default::default();
    for e in &events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no phase: {e}"));
        assert!(e["name"].is_string() && e["pid"].is_u64(), "{e}");
        match ph {
            "M" => assert!(e["args"]["name"].is_string() || e["args"]["sort_index"].is_i64(), "{e}"),
            "X" => {
                let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                assert!(ts >= 0.0 && dur >= 0.0, "{e}");
                let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().expect("tid"));
                slices.entry(key).or_default().push((ts, ts + dur, e["name"].to_string()));
            }
            "s" | "f" => assert!(e["id"].is_u64() && e["ts"].is_f64() && (ph == "s" || e["bp"] == "e"), "{e}"),
            "b" | "e" => assert!(e["id"].is_string() && e["cat"].is_string(), "{e}"),
            "i" => assert!(e["s"] == "t" && e["tid"].is_u64(), "{e}"),
            "C" => assert!(e["args"].is_object(), "{e}"),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for ((pid, tid), mut v) in slices {
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut open: Vec<Slice> = Vec::new();
        for s in v {
            while open.last().is_some_and(|o| o.1 <= s.0 + 1e-9 && !(o.0 == s.0 && o.1 >= s.1)) {
                open.pop();
            }
            if let Some(o) = open.last() {
                assert!(s.1 <= o.1 + 1e-9, "track {pid}/{tid}: {s:?} overlaps {o:?} without nesting");
            }
            open.push(s);
        }
    }
    events
}

/// A complete slice: start, end (µs) and name.
pub type Slice = (f64, f64, String);
