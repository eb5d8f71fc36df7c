//! The `rgdev` command: ptxas, info and demo.

use std::process::Command;

fn rgdev(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rgdev")).args(args).output().expect("run rgdev")
}

fn kernel(name: &str) -> String {
    format!("{}/../kernels/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn ptxas_reports_resources_and_writes_a_loadable_module() {
    let out_path = std::env::temp_dir().join(format!("rgdev-cli-{}.rgm", std::process::id()));
    let out = rgdev(&["ptxas", "-v", &kernel("matmul.ptx"), "-o", out_path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Compiling entry function 'matmul32' for 'sm_70'"), "{text}");
    assert!(text.contains("Function properties for matmul32"), "{text}");
    assert!(text.contains("8192 bytes smem"), "{text}");
    assert!(text.contains("28 bytes cmem[0]"), "{text}");
    assert!(
        text.contains("Occupancy of 'matmul32' on gv100: 1024 threads per block, 2 blocks per SM, 64 of 64 warps (100%), limited by threads"),
        "{text}"
    );
    // Without -v, as ptxas: nothing on success.
    let quiet = rgdev(&["ptxas", &kernel("matmul.ptx")]);
    assert!(quiet.status.success() && quiet.stdout.is_empty() && quiet.stderr.is_empty());
    let image = std::fs::read(&out_path).unwrap();
    let _ = std::fs::remove_file(&out_path);
    let dev = backend_user::Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_image(&image).unwrap();
    assert!(m.function("matmul16").is_ok());
}

#[test]
fn ptxas_fails_with_the_position_of_bad_input() {
    let bad = std::env::temp_dir().join(format!("rgdev-bad-{}.ptx", std::process::id()));
    std::fs::write(&bad, ".version 6.4\n.target sm_70\n.address_size 64\n.entry k()\n{\n  mov.u32 %r1 2;\n}\n")
        .unwrap();
    let out = rgdev(&["ptxas", bad.to_str().unwrap()]);
    let _ = std::fs::remove_file(&bad);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":6:") && err.contains("expected"), "{err}");
    let out = rgdev(&["ptxas", "/nonexistent/file.ptx"]);
    assert!(!out.status.success());
    assert_eq!(rgdev(&["ptxas"]).status.code(), Some(2));
}

/// ptxas's flags: a register limit met by spilling (and warned about), the architecture
/// choosing the SM the occupancy is measured on, help, and errors that name the bad flag.
#[test]
fn ptxas_flags() {
    let out = rgdev(&["ptxas", "-v", "-maxrregcount=20", "--warn-on-spills", &kernel("nbody.ptx")]);
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{err}");
    // Within the limit (the ABI's registers included), near it.
    let used: u32 = text
        .split("Used ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((17..=20).contains(&used), "{text}");
    assert!(err.contains("Registers are spilled to local memory in function 'nbody_step'"), "{err}");
    let low = rgdev(&["ptxas", "-maxrregcount", "4", &kernel("vecadd.ptx")]);
    assert!(
        String::from_utf8_lossy(&low.stderr).contains("adjusting per thread register count of 4 to lower bound of 16")
    );
    let fermi = rgdev(&["ptxas", "-v", "--gpu-name", "sm_20", &kernel("nbody.ptx")]);
    let text = String::from_utf8_lossy(&fermi.stdout);
    assert!(text.contains("for 'sm_20'") && text.contains("on gf100") && text.contains("of 48 warps"), "{text}");
    let help = rgdev(&["ptxas", "--help"]);
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("-maxrregcount N"));
    for (bad, named) in [(&["-arch=sm_x", "k.ptx"][..], "'sm_x'"), (&["--frob", "k.ptx"][..], "`--frob`")] {
        let out = rgdev(&[&["ptxas"][..], bad].concat());
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(named));
    }
}

#[test]
fn info_and_demo_run() {
    let out = rgdev(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("10de:06c0") && text.contains("0x140000a1"), "{text}");
    let out = rgdev(&["demo"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for needle in ["identical", "all 0xc0ffee00", "vector add", "matrix multiply", "reduction"] {
        assert!(text.contains(needle), "missing {needle}: {text}");
    }
    assert!(!text.contains("WRONG") && !text.contains("MISMATCH"));
}

/// `rgdev info` on a system preset: the topology matrix, then every GPU at its own PCI
/// address and BARs; `--json` the same as one object; `preset list` and `show` know
/// systems; a system is refused where one device is expected.
#[test]
fn info_on_a_system() {
    let out = rgdev(&["info", "--preset", "dgx1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("system dgx1: 8 GPUs"), "{text}");
    assert!(text.contains("GPU0      X   NV1   NV1   NV2   NV2   SYS   SYS   SYS"), "{text}");
    assert!(text.contains("GPU 7 (0000:07:00.0):"), "{text}");
    assert_eq!(text.matches("NV_PMC_BOOT_0").count(), 8);
    let out = rgdev(&["info", "--preset", "gv100x2", "--json", "--set", "board.sms=8"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["topology"], serde_json::json!([["X", "PIX"], ["PIX", "X"]]));
    let gpus = v["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2);
    assert_eq!((gpus[0]["multiprocessors"].as_u64(), gpus[1]["pci_bus_id"].as_str()), (Some(8), Some("0000:01:00.0")));
    assert_ne!(gpus[0]["bar0"], gpus[1]["bar0"]);
    let list = String::from_utf8_lossy(&rgdev(&["preset", "list"]).stdout).into_owned();
    assert!(list.contains("dgx1") && list.contains("system:"), "{list}");
    let show = String::from_utf8_lossy(&rgdev(&["preset", "show", "dgx1"]).stdout).into_owned();
    assert!(show.contains("[interconnect]") && show.contains("[0, 3, 2]"), "{show}");
    let out = rgdev(&["demo", "--preset", "gv100x2"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("system of 2 GPUs"));
}
