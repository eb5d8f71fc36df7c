//! The fidelity suite (`rgdev bench fidelity`, docs/fidelity.md): the timing model against a
//! real part's measured figures. Each preset with reference figures runs the suite with
//! `--check`: every row with a tolerance (`fidelity/*.csv`) must be within it. Rows kept as
//! `reported` (the model's known gaps) are printed, not asserted; the test checks that the
//! suite measured them.

use std::process::Command;

fn suite(preset: &str) -> String {
    let rgdev = tests::built::release_dir(&["rgdev"]).join("rgdev");
    let out = Command::new(rgdev).args(["bench", "fidelity", "--preset", preset, "--check"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "rgdev bench fidelity --preset {preset} --check:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The rows of `bench` in the suite's output: (key, rgdev, verdict).
fn rows<'a>(text: &'a str, bench: &str) -> Vec<(&'a str, f64, &'a str)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.first() == Some(&bench)).then(|| (f[1], f[2].parse().unwrap(), f.get(7).copied().unwrap_or("")))
        })
        .collect()
}

#[test]
fn on_h200_every_checked_row_is_within_its_tolerance_of_the_measured_part() {
    let out = suite("h200");
    let checked = out.lines().filter(|l| l.ends_with(",within")).count();
    assert!(checked >= 43, "{out}");
    assert!(!out.contains("OUTSIDE"), "{out}");
    // The memory hierarchy as the H200 showed it: L1 hits to 128 KiB, the L2 beyond, `.cg`
    // bypassing the L1 at every footprint, DRAM for a cold chase.
    let lat: Vec<_> = rows(&out, "load_latency");
    let at = |k: &str| lat.iter().find(|r| r.0 == k).unwrap().1;
    assert!(at("ca_f128K_s128") < 40.0 && at("ca_f512K_s128") > 250.0, "{out}");
    assert!(at("cg_f32K_s128") > 250.0, "{out}");
    assert!(at("cold_f1024K_s256") > 600.0, "{out}");
    // Two cycles a bank-conflict way: 31 extra ways at stride 32.
    let sh = rows(&out, "shared_access");
    let s = |k: &str| sh.iter().find(|r| r.0 == k).unwrap().1;
    assert!((s("stride32") - s("stride1") - 62.0).abs() < 1.0, "{out}");
    // The reported rows are measured too.
    for b in ["bandwidth", "atomic_per_cycle", "dispatch_us", "copy_latency"] {
        assert!(rows(&out, b).iter().all(|r| r.1 > 0.0), "{b}: {out}");
    }
}

#[test]
fn on_gv100_the_published_volta_figures_hold() {
    let out = suite("gv100");
    assert!(out.lines().filter(|l| l.ends_with(",within")).count() >= 9, "{out}");
    // One cycle a bank-conflict way on Volta's preset.
    let sh = rows(&out, "shared_access");
    let s = |k: &str| sh.iter().find(|r| r.0 == k).unwrap().1;
    assert!((s("stride32") - s("stride1") - 31.0).abs() < 1.0, "{out}");
}

#[test]
fn bad_arguments_are_errors() {
    let rgdev = tests::built::release_dir(&["rgdev"]).join("rgdev");
    for args in
        [&["bench"][..], &["bench", "nope"], &["bench", "fidelity", "--preset", "nope"], &["bench", "fidelity", "--x"]]
    {
        let out = Command::new(&rgdev).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
