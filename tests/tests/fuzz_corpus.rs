//! Fuzzing as a habit: every input committed under `fuzz/corpus/<target>/` (seeds, and
//! inputs that once found a bug) is replayed through its target's body
//! (`tests::fuzz`) on every test run, so what a fuzzer found stays fixed. The kernel suite's
//! PTX and its containers are replayed too. `write_seed_corpus` (ignored) regenerates the
//! seeds: `cargo test -p tests --test fuzz_corpus -- --ignored`.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = root().join("fuzz/corpus").join(target);
    let mut v: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{} is empty", dir.display());
    v
}

fn kernels() -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(root().join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    v.sort();
    v
}

fn replay(target: &str, inputs: Vec<(PathBuf, Vec<u8>)>, body: fn(&[u8])) {
    for (path, bytes) in inputs {
        let r = std::panic::catch_unwind(|| body(&bytes));
        assert!(r.is_ok(), "{target}: {} fails", path.display());
    }
}

#[test]
fn ptx_compile_corpus() {
    let mut inputs = corpus("ptx_compile");
    inputs.extend(kernels());
    replay("ptx_compile", inputs, tests::fuzz::ptx_compile);
}

#[test]
fn container_corpus() {
    let mut inputs = corpus("container");
    for (p, src) in kernels() {
        let prog = ptx::compile_ptx(std::str::from_utf8(&src).unwrap()).unwrap();
        inputs.push((p, prog.to_container()));
    }
    replay("container", inputs, tests::fuzz::container);
}

#[test]
fn pushbuf_corpus() {
    replay("pushbuf", corpus("pushbuf"), tests::fuzz::pushbuf);
}

#[test]
fn driver_api_corpus() {
    replay("driver_api", corpus("driver_api"), tests::fuzz::driver_api);
}

#[test]
fn preset_corpus() {
    replay("preset", corpus("preset"), tests::fuzz::preset);
}

/// Write the seed corpus (run by hand; the files are committed).
#[test]
#[ignore]
fn write_seed_corpus() {
    use fifo::Pushbuf;
    use hw::class::{compute, copy, host, subch};
    let write = |target: &str, name: &str, bytes: &[u8]| {
        let dir = root().join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), bytes).unwrap();
    };
    let hdr = ".version 6.4\n.target sm_70\n.address_size 64\n";
    // PTX: the shapes that once crashed or took quadratic time (kept small here).
    let n = 20_000;
    write(
        "ptx_compile",
        "deep_scopes.ptx",
        format!("{hdr}.entry k() {{\n{}ret;\n{}}}\n", "{".repeat(n), "}".repeat(n)).as_bytes(),
    );
    write(
        "ptx_compile",
        "deep_init.ptx",
        format!("{hdr}.global .u32 t[2] = {}1, 2{};\n", "{".repeat(n), "}".repeat(n)).as_bytes(),
    );
    write(
        "ptx_compile",
        "deep_operand.ptx",
        format!("{hdr}.entry k() {{\n.reg .pred %p;\nnot.pred %p, {}%p;\nret;\n}}\n", "!".repeat(n)).as_bytes(),
    );
    let chain: String = (0..2000).map(|k| format!(".func f{k}() {{\ncall f{}, ();\nret;\n}}\n", k + 1)).collect();
    write(
        "ptx_compile",
        "call_chain.ptx",
        format!("{hdr}{chain}.func f2000() {{\nret;\n}}\n.entry k() {{\ncall f0, ();\nret;\n}}\n").as_bytes(),
    );
    write(
        "ptx_compile",
        "const_over_64k.ptx",
        format!("{hdr}.const .b8 a[65532];\n.const .align 8 .b8 b[8];\n").as_bytes(),
    );
    // Containers: headers that stop early or lie.
    write("container", "magic_only", b"RGDEVMOD");
    write("container", "header_only", b"RGDEVMOD0000000600000018");
    write("container", "huge_length", b"RGDEVMOD00000006ffffffff\x01\x00\x00\x00");
    write("container", "old_version", b"RGDEVMOD\x04\x00\x00\x00\x10\x00\x00\x00");
    // Pushbuffers: hostile method streams.
    let words = |pb: &Pushbuf<256>| pb.words().iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let mut pb = Pushbuf::<256>::new();
    let acq = hw::class::SemaphoreD::new().with_operation(hw::class::SemOp::AcqGeq);
    pb.incr(0, host::SEMAPHOREA, &[0x2, 0x1000, 0xFFFF_FFFF, acq.into()]).unwrap(); // never satisfied
    write("pushbuf", "acquire_forever", &words(&pb));
    let mut pb = Pushbuf::<256>::new();
    pb.incr(subch::COMPUTE, compute::CODE_ADDRESS_HIGH, &[0x2, 0x0]).unwrap(); // code: the staging buffer
    pb.incr(subch::COMPUTE, compute::GRID_DIM_XY, &[0xFFFF_FFFF, 0xFFFF]).unwrap();
    pb.incr(subch::COMPUTE, compute::BLOCK_DIM_XY, &[32 | 1 << 16, 1]).unwrap();
    pb.incr(subch::COMPUTE, compute::THREADS_PER_BLOCK, &[32]).unwrap();
    pb.incr(subch::COMPUTE, compute::REGISTER_COUNT, &[16]).unwrap();
    pb.incr(subch::COMPUTE, compute::LAUNCH, &[0]).unwrap();
    write("pushbuf", "garbage_launch", &words(&pb));
    let mut pb = Pushbuf::<256>::new();
    pb.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &[0x2, 0x0, 0x2, 0x1000]).unwrap();
    pb.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[0xFFFF_FFFF]).unwrap();
    pb.incr(subch::COPY0, copy::LAUNCH_DMA, &[0x182]).unwrap(); // 4 GiB from the staging buffer
    write("pushbuf", "huge_copy", &words(&pb));
    write("pushbuf", "reserved_headers", &[0xFF; 64]);
    let mut rng = tests::Rng(77);
    write("pushbuf", "random", &rng.bytes(4096));
    // Driver API call sequences: (op, a, b) triples.
    write(
        "driver_api",
        "vecadd",
        &[0, 0, 0, 4, 16, 0, 4, 16, 0, 4, 16, 0, 11, 0, 0, 13, 0, 0, 14, 0, 1, 3, 0, 0, 7, 0, 0, 1, 0, 0],
    );
    write(
        "driver_api",
        "streams_events",
        &[0, 0, 0, 15, 1, 0, 18, 0, 0, 4, 8, 0, 10, 0, 0, 19, 0, 0, 20, 0, 0, 21, 0, 0, 22, 0, 0, 16, 0, 0, 17, 0, 0],
    );
    write("driver_api", "forged", &[1, 0x80, 0, 5, 0x90, 0, 6, 0x81, 0, 12, 0xFF, 0, 14, 0xFF, 0xFF, 17, 0x85, 0]);
    write("driver_api", "random", &rng.bytes(192));
    // Presets: the built-in ones, and values the validator must refuse by name.
    for (name, _) in fake_pci::config::PRESETS {
        let cfg = fake_pci::DeviceConfig::preset(name).unwrap();
        write("preset", &format!("{name}.toml"), backend_user::preset::to_toml(&cfg).as_bytes());
    }
    write("preset", "huge_l1.toml", b"[l1]\nbytes = 4294963200\n");
    write("preset", "many_registers.toml", b"board.sms = 255\nsm.regs = 16777216\n");
    write(
        "preset",
        "small_board.toml",
        b"base = \"gf100\"\nmode = \"functional\"\n[board]\nsms = 2\nvram_size = 16777216\n",
    );
    // The flat keys of earlier versions.
    write("preset", "flat_keys.toml", b"base = \"gf100\"\nsms = 2\nvram_size = 16777216\nmode = \"functional\"\n");
    write("preset", "unknown_group.toml", b"[bored]\nsms = 2\n");
    write("preset", "garbage.toml", b"[[[\nsms = -1\n");
}
