//! The Runtime API end to end: the CUDA C++ programs of `tests/cuda`, compiled by
//! `rgdev cc` (clang-14 underneath, rgdev's headers, libcudart.so.12) and run on the
//! simulated GPU, each checking itself against a CPU reference and printing "all checks
//! passed". The README's test command installs clang-14 and builds `target/release` first.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    tests::built::root()
}

fn release_dir() -> PathBuf {
    tests::built::release_dir(&["libcudart.so", "rgdev"])
}

fn rgdev() -> Command {
    Command::new(release_dir().join("rgdev"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rgdev-rt-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `rgdev cc tests/cuda/NAME.cu EXTRA... -o DIR/NAME`; the executable's path.
fn compile(name: &str, extra: &[&str]) -> PathBuf {
    compile_in(name, name, extra)
}

/// [`compile`] into a scratch directory of its own, `tag` (tests that build the same
/// program run in parallel, and each removes its directory at its end).
fn compile_in(tag: &str, name: &str, extra: &[&str]) -> PathBuf {
    let dir = scratch(tag);
    let exe = dir.join(name);
    tests::built::compile_cuda(name, extra, &exe);
    exe
}

/// `rgdev run --preset PRESET --stats-json JSON --trace TRACE -- EXE` with managed memory
/// paged (`RGDEV_UVM=paging`), which must succeed: its stdout, the statistics and the trace.
fn run_with_stats(
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
fn timeline(trace: &Path) -> String {
    let svg = trace.with_extension("svg");
    let out = rgdev().arg("timeline").arg(trace).arg("-o").arg(&svg).output().expect("rgdev timeline runs");
    assert!(out.status.success(), "{:?}", text(&out));
    std::fs::read_to_string(&svg).unwrap()
}

/// Run a program that prints "all checks passed"; its stdout.
fn run_ok(exe: &Path, env: &[(&str, &str)]) -> String {
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
fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// [`run_ok`] with `env` and the statistics file (`RGDEV_STATS_JSON`, `stats.json` beside
/// `exe`): what it printed, and the statistics.
fn run_stats(exe: &Path, env: &[(&str, &str)]) -> (String, serde_json::Value) {
    let json = exe.parent().unwrap().join("stats.json");
    let mut env = env.to_vec();
    env.push(("RGDEV_STATS_JSON", json.to_str().unwrap()));
    let out = run_ok(exe, &env);
    (out, read_json(&json))
}

/// The first kernel record of the statistics named `name`.
fn kernel<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["kernels"].as_array().unwrap().iter().find(|k| k["name"] == name).expect(name)
}

fn program(name: &str, extra: &[&str]) {
    let exe = compile(name, extra);
    run_ok(&exe, &[]);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Build `tests/cuda/NAME.cu`, run it in timing mode and in functional mode (which runs a
/// block's warps in turn, each until it spins: another order), and check that each output
/// says `expect`.
fn both_modes(name: &str, extra: &[&str], expect: &str) {
    let exe = compile(name, extra);
    assert!(run_ok(&exe, &[]).contains(expect));
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    assert!(run_ok(&exe, &[("RGDEV_PRESET", toml.to_str().unwrap())]).contains(expect));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Host functions and threads (hostfn.cu): a host function making system calls while
/// another thread synchronizes the context 200 times (each waits for it: none gives up with
/// "device idle"), or launches on the legacy stream behind it (the kernel runs); CUDA calls
/// inside a host function answer cudaErrorNotPermitted, change nothing (the stream it tried
/// to destroy runs on) and leave the waiting thread's last error alone; and the simulated
/// time around a host function is the same whether it sleeps 0 or 120 ms.
#[test]
fn host_functions_with_other_threads_waiting() {
    let exe = compile("hostfn", &[]);
    let simulated = |ms: &str| {
        let out = run_ok(&exe, &[("HOSTFN_SLEEP_MS", ms)]);
        out.lines().find(|l| l.starts_with("simulated:")).expect("simulated time").to_string()
    };
    assert_eq!(simulated("0"), simulated("120"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Stream callbacks with no thread waiting (the shape of cuda-samples' simpleCallback):
/// work and a callback queued on four streams, then the main thread blocks on a host
/// condition without a CUDA call. The clock's owner runs the device and the callbacks, in
/// stream order, each after its stream's copies; the threads they start call cudaFree and
/// cudaFreeHost; every run gives the same simulated times.
#[test]
fn callbacks_run_when_no_thread_waits() {
    let exe = compile("callback", &[]);
    let runs: Vec<String> = (0..2).map(|_| run_ok(&exe, &[])).collect();
    assert!(runs[0].contains("callbacks in order: 0 1 2 3"), "{}", runs[0]);
    let simulated = |o: &str| o.lines().find(|l| l.starts_with("simulated:")).expect("simulated times").to_string();
    assert_eq!(simulated(&runs[0]), simulated(&runs[1]));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Vector add with `<<<>>>`, a grid-stride loop, the launch's status.
#[test]
fn vecadd() {
    program("vecadd", &[]);
}

/// Templates, functors, device lambdas, classes and `__host__ __device__` functions.
#[test]
fn templates_and_cxx() {
    program("templates", &["-std=c++17"]);
}

/// Barriers that order shared memory (the pattern clang-14 broke: thread 0 writes a
/// `__shared__` value between two `__syncthreads()`, every thread reads it), the
/// block-wide votes, and cooperative groups: blocks, static and dynamic tiles, coalesced
/// groups and their partitions, reduce and scans, memcpy_async, and a grid-wide sync in a
/// cooperative launch; built by the default clang and by clang-14 when it is installed.
#[test]
fn barriers_and_cooperative_groups() {
    let exe = compile("cg", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("cooperative launch: "), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    if Command::new("clang-14").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let dir = scratch("cg14");
        let exe = dir.join("cg");
        let out = rgdev()
            .env("RGDEV_CLANG", "clang-14")
            .arg("cc")
            .arg(root().join("tests/cuda/cg.cu"))
            .arg("-I")
            .arg(root().join("tests/cuda"))
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("rgdev cc runs");
        assert!(out.status.success(), "{:?}", text(&out));
        run_ok(&exe, &[]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The CUDA C++ surface programs include (profiler, builtin types, math constants,
/// `struct cudaArray`, host and device `min`/`max`, cache-operator loads and stores, scoped
/// atomics, C++ overloads, `<memory>`), built plainly and with nvcc's `-use_fast_math`.
#[test]
fn cuda_cxx_headers() {
    program("headers", &[]);
    let exe = compile_in("headers-fast", "headers", &["-use_fast_math", "-std=c++17"]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("fast math: sinf(0.5) = "), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Directed rounding (`__fadd_rd`, `__ddiv_ru`, `__int2float_rz`, ...): every operation
/// and conversion in every mode, bit for bit against the host under `fesetround`.
#[test]
fn directed_rounding_matches_the_host() {
    let exe = compile("rounding", &["-Xcompiler", "-frounding-math"]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("directed results differ from nearest"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Tiled matrix multiply with `__shared__` tiles.
#[test]
fn tiled_matmul() {
    program("matmul", &["-O2"]);
}

/// `__constant__` and `__device__` variables through the symbol API.
#[test]
fn constant_memory_and_symbols() {
    program("constant", &[]);
}

/// `extern __shared__` arrays sized at launch.
#[test]
fn dynamic_shared_memory() {
    program("dynshared", &[]);
}

/// Streams, events, host functions and callbacks in stream order.
#[test]
fn streams_events_and_callbacks() {
    program("streams", &[]);
}

/// Configuration errors (cleared by cudaGetLastError) and a sticky illegal address.
#[test]
fn error_model() {
    program("errors", &[]);
}

/// Pitched and 3D memory, registered host memory, pointer attributes, occupancy, function
/// attributes, cooperative launches, priorities, deprecated names, an unsupported call.
#[test]
fn the_rest_of_the_api() {
    program("apisurface", &["-lcuda"]);
}

/// CUDA arrays, texture objects (point and bilinear, linear memory, normalized reads,
/// paged managed memory), surface objects written by a kernel, copies to and from arrays.
#[test]
fn arrays_textures_and_surfaces() {
    // Texels of paged managed memory fault in as loads do: a texture of 16 pages of
    // managed memory, its result in 16 more.
    let exe = compile("texture", &[]);
    let (_, s) = run_stats(&exe, &[]);
    let tex = kernel(&s, "_Z11via_textureyPfi");
    assert!(tex["replayable_faults"].as_u64().unwrap() > 0, "{tex}");
    assert_eq!(tex["migrations_to_gpu"], 32, "{tex}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Relocatable device code across two files, in one step (`-rdc=true`) and as nvcc's
/// separate compilation (`-dc`, then a link of the objects).
#[test]
fn relocatable_device_code() {
    let dir = scratch("rdc");
    let src = |n: &str| root().join(format!("tests/cuda/{n}.cu"));
    let inc = root().join("tests/cuda");
    let one = dir.join("one");
    let st = rgdev()
        .args(["cc", "-rdc=true", "-I"])
        .arg(&inc)
        .arg(src("rdc_main"))
        .arg(src("rdc_lib"))
        .arg("-o")
        .arg(&one)
        .status()
        .unwrap();
    assert!(st.success());
    run_ok(&one, &[]);
    let (a, b) = (dir.join("main.o"), dir.join("lib.o"));
    for (s, o) in [("rdc_main", &a), ("rdc_lib", &b)] {
        let st = rgdev().args(["cc", "-dc", "-I"]).arg(&inc).arg(src(s)).arg("-o").arg(o).status().unwrap();
        assert!(st.success());
    }
    let two = dir.join("two");
    let st = rgdev().arg("cc").arg(&a).arg(&b).arg("-o").arg(&two).status().unwrap();
    assert!(st.success());
    run_ok(&two, &[]);
    // nvcc's split: -dlink writes the device link, and the link takes it as an object.
    let dl = dir.join("dlink.o");
    let st = rgdev().args(["cc", "-dlink"]).arg(&a).arg(&b).arg("-o").arg(&dl).status().unwrap();
    assert!(st.success() && dl.exists());
    let three = dir.join("three");
    let st = rgdev().arg("cc").arg(&a).arg(&b).arg(&dl).arg("-o").arg(&three).status().unwrap();
    assert!(st.success());
    run_ok(&three, &[]);
    // Without the library's half the program does not link (its host code names the
    // library's `__device__` variable), as with nvcc.
    let st =
        rgdev().arg("cc").arg(&a).arg("-o").arg(dir.join("half")).stderr(std::process::Stdio::null()).status().unwrap();
    assert!(!st.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// cuda_fp16.h: binary16 conversions bit for bit on host and device, half arithmetic.
#[test]
fn half_precision() {
    program("fp16", &[]);
}

/// cuda_fp16.h and cuda_bf16.h bit for bit: 2048 operand triples of each format through
/// every operation (arithmetic with _sat/_relu, division, fma, min/max, comparisons, pairs,
/// conversions with every rounding), computed by the device's .f16/.bf16 instructions and
/// by the host's exact arithmetic, which must agree in every bit; atomicAdd and shuffles of
/// halves and pairs. Again with -use_fast_math (which must not change half arithmetic).
#[test]
fn half_and_bfloat16_bit_exact() {
    for extra in [&[][..], &["-use_fast_math"][..]] {
        let exe = compile("half_exact", extra);
        let out = run_ok(&exe, &[]);
        assert!(out.contains("half: 2048 cases x 96 results, 0 differ"), "{out}");
        assert!(out.contains("bfloat16: 2048 cases x 96 results, 0 differ"), "{out}");
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}

/// Device-side malloc, free, new and delete on the heap cudaLimitMallocHeapSize sizes:
/// the limit's default and a new value (frozen after the first kernel that allocates), a
/// heap filled until NULL, emptied and filled again, blocks that outlive their kernel,
/// C++ objects, and a double free that stops the grid.
#[test]
fn device_heap() {
    let exe = compile("device_malloc", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("64 KiB blocks in a 1 MiB heap: 15, then 15"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// sm_70/sm_80 integer intrinsics (__match_any/all_sync, __reduce_*_sync, __dp4a,
/// __dp2a_lo/hi, __nanosleep) and `__int128` arithmetic, which clang compiles to PTX carry
/// chains (`add.cc.s64`, `addc.cc.s64`, `sub.cc`, `subc`), against the host.
#[test]
fn integer_intrinsics_and_int128() {
    program("intrinsics_int", &["-std=c++17"]);
}

/// cuda_pipeline.h over PTX `cp.async`: tiles staged into shared memory two ahead with
/// copies of 16, 8 and 4 bytes, zfill at the array's end, commit and wait_prior.
#[test]
fn pipeline_primitives() {
    let exe = compile("pipeline", &["-std=c++17"]);
    assert!(run_ok(&exe, &[]).contains("6 tiles staged"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Asynchronous barrier primitives over PTX mbarrier (tests/cuda/awbarrier.cu): split
/// arrive and wait in rounds, tokens' pending counts, threads leaving with
/// arrive_and_drop, and `__pipeline_arrive_on` completing a phase with staged copies; in
/// both modes.
#[test]
fn asynchronous_barriers() {
    both_modes("awbarrier", &[], "awbarrier: 6 rounds, a drop, staged copies");
}

/// C++ virtual functions and function pointers (tests/cuda/virtual.cu): objects of three
/// classes made on the device, virtual calls diverging across a warp, a virtual function
/// calling virtual functions, virtual destructors (one through `delete` on the device
/// heap), a compile-time table of pointers, a pointer the host reads from a symbol and
/// passes back; in both modes.
#[test]
fn virtual_functions_and_function_pointers() {
    both_modes("virtual", &[], "virtual: 96 objects of 3 classes, 4 kinds of pointer calls");
}

/// libcu++'s synchronization primitives (tests/cuda/libcuxx.cu, rgdev's <cuda/barrier>,
/// <cuda/pipeline>, <cuda/atomic>): barriers in shared memory with tokens, drops and a
/// completion function, block copies tied to a barrier, thread and block pipelines (split
/// roles too), scoped atomics on the device and the host, and half a warp waiting for the
/// other (independent thread scheduling); in both modes.
#[test]
fn libcuxx_barriers_pipelines_and_atomics() {
    both_modes("libcuxx", &[], "libcuxx: barriers, block copies, thread and block pipelines, atomics");
}

/// <cuda_occupancy.h> (tests/cuda/occupancy.cu): the header-only calculator agrees with the
/// runtime's occupancy API for four kernels x 16 block sizes x 10 shared memory sizes and in
/// its block-size suggestions, gives the same answer in device code, and gives the answers
/// worked out by hand for an A100, H100, Turing, Kepler and GP100 (carveouts, reserved shared
/// memory, block barriers, partitioned caching, bad input).
#[test]
fn occupancy_calculator_header() {
    let exe = compile("occupancy", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("occupancy: 652 answers of <cuda_occupancy.h> agree with the runtime's"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// nvcuda::wmma on the tensor core (tests/cuda/wmma.cu, built for sm_80 and run on a gv100
/// that reports compute capability 8.0): every shape and type of mma.h in all layouts and a
/// GEMM, bit for bit against the host, in both modes; the multiply's issue interval is the
/// preset's (ten times it makes eight warps multiplying in a loop slower).
#[test]
fn warp_matrix_functions_on_the_tensor_core() {
    let exe = compile("wmma", &["-arch=sm_80"]);
    let dir = exe.parent().unwrap();
    let preset = |name: &str, extra: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("base = \"gv100\"\n{extra}[board]\ncc_major = 8\ncc_minor = 0\n")).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (timing, functional) = (preset("sm80.toml", ""), preset("sm80f.toml", "mode = \"functional\"\n"));
    let slow = preset("slow.toml", "[pipe]\ntensor_interval = 320\n");
    assert!(run_ok(&exe, &[("RGDEV_PRESET", &functional)]).contains("a 64x64x64 f16 GEMM"));
    let (_, s) = run_stats(&exe, &[("RGDEV_PRESET", &timing)]);
    let (_, s10) = run_stats(&exe, &[("RGDEV_PRESET", &slow)]);
    let cycles = |s: &serde_json::Value| kernel(s, "_Z5chainPfi")["cycles"].as_u64().unwrap();
    assert!(cycles(&s10) > cycles(&s) * 3, "tensor interval x10: {} -> {} cycles", cycles(&s), cycles(&s10));
    // On compute capability 7.0 the sm_80 build is refused, as CUDA refuses it.
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(!out.status.success() && (o + &e).contains("cudaErrorNoKernelImageForDevice"), "{}", out.status);
    let _ = std::fs::remove_dir_all(dir);
}

/// PTX mma.sync through inline assembly (tests/cuda/mma_sync.cu, sm_80 on a gv100 that
/// reports 8.0): each shape and type rgdev has, fragments placed as the PTX ISA lays them
/// out, bit for bit against host GEMMs, and ldmatrix (x1, x2 .trans, x4) feeding it from
/// shared memory; in both modes. Device memcpy and memset too.
#[test]
fn mma_sync_fragments_of_the_ptx_isa() {
    let exe = compile("mma_sync", &["-arch=sm_80"]);
    let dir = exe.parent().unwrap();
    for (name, mode) in [("t.toml", ""), ("f.toml", "mode = \"functional\"\n")] {
        let p = dir.join(name);
        std::fs::write(&p, format!("base = \"gv100\"\n{mode}[board]\ncc_major = 8\ncc_minor = 0\n")).unwrap();
        assert!(
            run_ok(&exe, &[("RGDEV_PRESET", p.to_str().unwrap())])
                .contains("mma.sync: 13 operations, bit for bit, ldmatrix")
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Unified virtual addressing: pinned memory's host pointer used by a kernel,
/// cudaMemcpyDefault in every direction, pointer attributes; without it (RGDEV_UVA=0)
/// cudaMemcpyDefault is cudaErrorInvalidValue.
#[test]
fn unified_addressing() {
    let exe = compile("uva", &[]);
    assert!(run_ok(&exe, &[]).contains("unified addressing\n"));
    assert!(run_ok(&exe, &[("RGDEV_UVA", "0")]).contains("no unified addressing"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Managed memory: `__managed__` variables used by name and by address on both sides,
/// cudaMallocManaged memory the host and kernels take turns on, copies and memsets,
/// pointer attributes, advice and prefetches read back as range attributes, the errors;
/// without unified addressing cudaMallocManaged is cudaErrorNotSupported.
#[test]
fn managed_memory() {
    let exe = compile("managed", &[]);
    let json = exe.parent().unwrap().join("stats.json");
    // Host memory mapped everywhere, as on devices before 6.0.
    assert!(!run_ok(&exe, &[("RGDEV_UVM", "host")]).contains("no unified addressing"));
    // Paged by default (gv100 is 7.0).
    let paged = [("RGDEV_STATS_JSON", json.to_str().unwrap())];
    assert!(!run_ok(&exe, &paged).contains("no unified addressing"));
    // Kernels fault their pages in, but not after a prefetch; in the 3000-launch loop the
    // first kernel's faults are served while later launches wait for ring space.
    let s: serde_json::Value = read_json(&json);
    let faults = |name: &str| -> Vec<u64> {
        let k = s["kernels"].as_array().unwrap().iter().filter(|k| k["name"] == name);
        k.map(|k| k["replayable_faults"].as_u64().unwrap()).collect()
    };
    assert!(faults("_Z5scalePfif").iter().any(|&f| f > 0), "{s}");
    // The program's __managed__ variables are paged too: every kernel on them faults their
    // pages in (the host touched them in between).
    let count = faults("_Z5counti");
    assert!(count.len() == 2 && count.iter().all(|&f| f > 0), "{count:?}");

    let prefetched = faults("_Z10prefetchedPfi");
    assert_eq!(prefetched[0], 0, "every page was there");
    assert!(prefetched[1] > 0 && prefetched.len() > 1000, "the loop's first kernel faulted");
    assert!(prefetched[2..].iter().all(|&f| f == 0), "and the others found the pages");
    assert!(s["unified_memory"]["migrations_to_gpu"].as_u64().unwrap() >= 16, "{}", s["unified_memory"]);
    assert!(run_ok(&exe, &[("RGDEV_UVA", "0")]).contains("no unified addressing"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// cudaMemAdvise acted on (advise.cu, paged managed memory of 16 pages): a preferred
/// location on the host maps the host pages where they are at the kernel's faults, and a
/// device advised to access the memory has them mapped at the advice (no fault; neither
/// migrates); read-mostly pages get read-only copies that a write drops (the copies are
/// not written back); without advice the pages migrate.
#[test]
fn managed_memory_advice() {
    let exe = compile("advise", &[]);
    let (_, s) = run_stats(&exe, &[]);
    let moved = |name: &str| {
        let k = kernel(&s, name);
        let n = |f: &str| k[f].as_u64().unwrap();
        (n("replayable_faults") > 0, n("migrations_to_gpu"), n("migrations_to_host"))
    };
    assert_eq!(moved("_Z7on_hostPfi"), (true, 0, 0), "mapped where it lives");
    assert_eq!(moved("_Z8accessedPfi"), (false, 0, 0), "mapped where it lives when advised: no fault");
    assert_eq!(moved("_Z9read_onlyPKfPfi"), (true, 16, 0), "a copy per page, the host keeps it");
    // The load makes a copy, the store drops it and takes the page.
    assert_eq!(moved("_Z10then_writePfi"), (true, 32, 0));
    assert_eq!(moved("_Z9unadvisedPfi"), (true, 16, 0));
    // Back to the host at synchronization: the written pages only, three times (the second
    // unadvised kernel's before the 2D copies).
    assert_eq!(s["unified_memory"]["migrations_to_host"], 48, "{}", s["unified_memory"]);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// cudaMemAdvise across two GPUs (advise_peers.cu on gv100x2, 16 pages of managed memory;
/// GPU 1's kernel follows GPU 0's through an event of GPU 0, no synchronization between):
/// GPU 0 as the preferred location keeps the pages, which GPU 1 reaches over the link;
/// GPU 1 advised to access the memory has it mapped where it lives, and takes no fault;
/// without advice GPU 1 takes the pages from GPU 0.
#[test]
fn managed_memory_advice_across_gpus() {
    let exe = compile("advise_peers", &[]);
    let (_, s) = run_stats(&exe, &[("RGDEV_PRESET", "gv100x2")]);
    // (device, faults, pages in, pages out, bytes loaded and stored over the link)
    let k = |name: &str| {
        let k = kernel(&s, name);
        let n = |f: &str| k[f].as_u64().unwrap();
        let link = (n("peer_read_bytes"), n("peer_write_bytes"));
        (n("device"), n("replayable_faults") > 0, n("migrations_to_gpu"), n("migrations_to_host"), link)
    };
    let over_link = (65536, 65536);
    assert_eq!(k("_Z11preferred_0Pfi"), (0, true, 16, 0, (0, 0)));
    assert_eq!(k("_Z11preferred_1Pfi"), (1, true, 0, 0, over_link), "mapped on GPU 0, its preferred location");
    assert_eq!(k("_Z10accessed_0Pfi"), (0, true, 16, 0, (0, 0)));
    assert_eq!(k("_Z10accessed_1Pfi"), (1, false, 0, 0, over_link), "mapped already: no fault");
    assert_eq!(k("_Z11unadvised_0Pfi"), (0, true, 16, 0, (0, 0)));
    assert_eq!(k("_Z11unadvised_1Pfi"), (1, true, 16, 16, (0, 0)), "from GPU 0 through the host");
    // Home at each of the three synchronizations, and GPU 0's pages for GPU 1's last kernel.
    assert_eq!(s["unified_memory"]["migrations_to_host"], 64, "{}", s["unified_memory"]);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// The statistics file is written as the run goes: a program killed (SIGKILL: no exit
/// handler runs) after a synchronization leaves the statistics of what finished.
#[test]
fn a_killed_program_keeps_the_statistics_of_what_finished() {
    use std::io::BufRead;
    let exe = compile_in("killed", "killed", &[]);
    let json = exe.parent().unwrap().join("stats.json");
    let mut child = Command::new(&exe)
        .env("RGDEV_STATS_JSON", &json)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the program runs");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line, "synchronized\n");
    child.kill().unwrap();
    let _ = child.wait();
    let stats: serde_json::Value = read_json(&json);
    let kernels = stats["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "{stats}");
    assert_eq!(kernels[0]["name"], "_Z4fillPi");
    assert!(kernels[0]["cycles"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Sweep points: `--set` overrides reach the program (its statistics hold the effective
/// configuration), and `rgdev stats merge --csv` makes one table of the runs with the
/// parameter that differs as a column.
#[test]
fn sweep_points_merge_into_one_table() {
    let exe = compile_in("vecadd-sweep", "vecadd", &[]);
    let dir = exe.parent().unwrap();
    let mut files = Vec::new();
    for sms in [4, 8] {
        let json = dir.join(format!("sms{sms}.json"));
        let out = rgdev()
            .args(["run", "--preset", "gv100", "--set", &format!("board.sms={sms}"), "--set", "mode=functional"])
            .arg("--stats-json")
            .arg(&json)
            .arg(&exe)
            .output()
            .expect("rgdev run runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stats: serde_json::Value = read_json(&json);
        assert_eq!(stats["config"]["board"]["sms"], sms);
        assert_eq!(stats["config"]["mode"], "functional");
        files.push(json);
    }
    let out = rgdev().args(["stats", "merge", "--csv"]).args(&files).output().expect("rgdev stats runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(out.status.success());
    assert!(lines[0].starts_with("file,program,board.sms,type,name,calls,"), "{text}");
    let kernels: Vec<&&str> = lines.iter().filter(|l| l.contains(",kernel,_Z6vecadd")).collect();
    assert_eq!(kernels.len(), 2, "{text}");
    assert!(kernels[0].contains(",vecadd,4,kernel,") && kernels[1].contains(",vecadd,8,kernel,"), "{text}");
    let bad = rgdev().args(["run", "--set", "board.smz=3", "/bin/true"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("smz"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Driver and Runtime API calls in one program, sharing the primary context.
#[test]
fn mixing_driver_and_runtime_api() {
    program("mixed", &["-lcuda"]);
}

/// The device math library (rgdev's own, in math_functions.h) against the host's long
/// double functions: every function in both precisions within CUDA's documented ulp
/// bounds; exact functions bit for bit.
#[test]
fn math_library_within_cudas_bounds() {
    let exe = compile("mathlib", &["-std=c++17"]);
    let out = run_ok(&exe, &[]);
    for f in ["exp ", "log ", "sin ", "pow ", "atan2 ", "fmod "] {
        assert!(out.lines().any(|l| l.starts_with(f)), "{f} not measured:\n{out}");
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// The Bessel functions against mpmath's values (tests/cuda/bessel_ref.h): J0, J1, Y0, Y1,
/// I0, I1 in both precisions, J_n and Y_n, within CUDA's bounds, and the special values.
#[test]
fn bessel_functions_within_cudas_bounds() {
    let exe = compile("bessel", &[]);
    let out = run_ok(&exe, &[]);
    for f in ["j0 ", "y1 ", "i1 ", "jn "] {
        assert!(out.lines().any(|l| l.starts_with(f)), "{f} not measured:\n{out}");
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Device printf: exact text, printed at synchronization after the host's earlier output,
/// the FIFO limit and the records that did not fit.
#[test]
fn device_printf() {
    let exe = compile("printf", &[]);
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    let mut want = String::from(
        "host: launched\n\
         [0] gpu:  0.00|ff  |0000|+0|a|0.000000e+00|100000|abc|%\n\
         [1] gpu:  1.25|100 |0010|-8589934592|b|1.000000e-03|200000|abc|%\n\
         [2] gpu:  2.50|101 |0020|-17179869184|c|2.000000e-03|300000|abc|%\n\
         [3] gpu:  3.75|102 |0030|-25769803776|d|3.000000e-03|400000|abc|%\n\
         no arguments\n\
         (null)|(nil)|-3|65535|18446744073709551615\n\
         host: synchronized\n",
    );
    for k in 0..51 {
        want += &format!("line {k}\n");
    }
    want += "line 100\nline 101\nall checks passed\n";
    assert_eq!(o, want);
    assert!(e.contains("rgdev: 13 device printf records did not fit the FIFO (cudaLimitPrintfFifoSize)"), "{e}");
    // The same text in functional mode.
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    let out = Command::new(&exe).env("RGDEV_PRESET", &toml).output().unwrap();
    assert_eq!(text(&out).0, want);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Device assert: CUDA's message for each failing thread on stderr, cudaErrorAssert
/// sticky until cudaDeviceReset.
#[test]
fn device_assert() {
    let exe = compile("assert", &[]);
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success() && o.contains("all checks passed"), "{o}{e}");
    assert!(o.contains("cudaErrorAssert: device-side assert triggered"), "{o}");
    let src = root().join("tests/cuda/assert.cu");
    let lines: Vec<&str> = e.lines().filter(|l| l.contains("Assertion")).collect();
    assert_eq!(lines.len(), 27, "{e}");
    for (k, l) in lines.iter().enumerate() {
        let want = format!(
            "{}:9: void within(const int *, int, int): block: [1,0,0], thread: [{},0,0] Assertion `v[i] < limit` failed.",
            src.display(),
            k + 5
        );
        assert_eq!(*l, want);
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// `rgdev run` on a Runtime API program: statistics name its kernels, a preset applies
/// (gf100, compute 2.0: the program is built with PTX for sm_20).
#[test]
fn rgdev_run_on_a_runtime_program() {
    let exe = compile_in("matmul-run", "matmul", &["-arch=sm_20"]);
    let dir = exe.parent().unwrap();
    let (o, stats, t) = run_with_stats(&exe, "gf100", &dir.join("stats.json"), &dir.join("trace.json"));
    assert!(o.contains("all checks passed"), "{o}");
    let kernels = stats["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "{stats}");
    assert_eq!(kernels[0]["name"], "_Z6matmulPKfS0_Pfiii");
    assert_eq!(kernels[0]["grid"], serde_json::json!([4, 5, 1]));
    assert!(kernels[0]["cycles"].as_u64().unwrap() > 0);
    // The timeline has the kernel and the copies on their tracks.
    let events = &check_trace_schema(&t);
    assert!(events.iter().any(|e| e["name"] == "_Z6matmulPKfS0_Pfiii" && e["ph"] == "X"), "{t}");
    assert!(events.iter().filter(|e| e["ph"] == "X").count() >= 3, "a kernel and its copies");
    let _ = std::fs::remove_dir_all(dir);
}

/// Several GPUs through the Runtime API (multigpu.cu: a slice of the data per device,
/// cudaSetDevice, per-device streams, flags, primary contexts and resets) on systems of 1,
/// 2, 4 and 8 GPUs; `rgdev run` on a system: every GPU's kernels and copies in the
/// statistics with their device, a trace process per GPU, the same cycles in every run.
#[test]
fn several_gpus_through_the_runtime_api() {
    let exe = compile("multigpu", &[]);
    // Peer pairs from the topology: every pair behind PCIe switches under one CPU, the
    // DGX-1's NVLink neighbours (four each) and none across its sockets.
    for (preset, n, pairs) in [("gv100", 1, 0), ("gv100x2", 2, 2), ("gv100x4", 4, 12), ("dgx1", 8, 32)] {
        let out = run_ok(&exe, &[("RGDEV_PRESET", preset)]);
        assert!(out.contains(&format!("{n} devices\n{pairs} peer pairs\n")), "{preset}: {out}");
        assert_eq!(out.contains("peer access 0 -> "), n > 1, "{preset}: {out}");
    }
    let dir = exe.parent().unwrap();
    let stats = |tag: &str| {
        let (json, trace) = (dir.join(format!("{tag}.json")), dir.join(format!("{tag}-trace.json")));
        let (o, s, t) = run_with_stats(&exe, "gv100x4", &json, &trace);
        assert!(o.contains("4 devices"), "{o}");
        (s, t)
    };
    let (s, t) = stats("a");
    let kernels = s["kernels"].as_array().unwrap();
    for d in 0..4u64 {
        let on: Vec<_> = kernels.iter().filter(|k| k["device"] == d).map(|k| k["name"].as_str().unwrap()).collect();
        let on: Vec<_> = on.into_iter().filter(|&k| k != "_Z4axpyPKfS0_Pfif").collect();
        // The slice's two kernels, then one on its slice of the managed allocation, one on
        // device 0's pinned memory.
        assert_eq!(on, ["_Z5scalePfif", "_Z12partial_sumsPKfiPf", "_Z5scalePfif", "_Z5scalePfif"], "device {d}");
        // Managed memory is paged: every device's first touch of its slice faults and
        // migrates it. Device 0's pinned memory is mapped into another device's context
        // when its kernel first touches it: a replayable fault there too.
        let scales: Vec<_> = kernels.iter().filter(|k| k["device"] == d && k["name"] == "_Z5scalePfif").collect();
        let faulted = |k: &serde_json::Value| k["replayable_faults"].as_u64().unwrap() > 0;
        assert!(!faulted(scales[0]), "device {d}: its own memory");
        assert_eq!((faulted(scales[1]), faulted(scales[2])), (true, d > 0), "device {d}");
        let copies = s["copies"].as_array().unwrap().iter().filter(|c| c["device"] == d).count();
        assert!(copies >= 3, "device {d}: its module, its slice in and its sums out");
    }
    assert_eq!(s["devices"].as_array().unwrap().len(), 4);
    // Each device's 16 KiB slice of the managed allocation: 4 pages migrated to it, and
    // back to the host when the host synchronized.
    let um = &s["unified_memory"];
    assert_eq!((um["migrations_to_gpu"].as_u64(), um["migrations_to_host"].as_u64()), (Some(16), Some(16)), "{um}");
    // The peer kernel on GPU 0 loaded and stored GPU 3's VRAM over the link (4096 floats
    // each way), and the peer copies crossed it.
    let axpy: Vec<_> = kernels.iter().filter(|k| k["name"] == "_Z4axpyPKfS0_Pfif").collect();
    assert_eq!(axpy.len(), 3, "one per peer of GPU 0");
    assert!(axpy.iter().all(|k| k["device"] == 0 && k["peer_read_bytes"] == 16384 && k["peer_write_bytes"] == 16384));
    let ptop = s["copies"].as_array().unwrap().iter().filter(|c| c["kind"] == "PtoP" && c["path"] == "peer link");
    assert_eq!(ptop.count(), 6, "cudaMemcpyDefault and cudaMemcpyPeerAsync with access, for each peer");
    assert_eq!(s["devices"][3]["pci_bus_id"], "0000:03:00.0");
    let events = check_trace_schema(&t);
    let processes: Vec<_> =
        events.iter().filter(|e| e["name"] == "process_name").map(|e| e["args"]["name"].as_str().unwrap()).collect();
    assert!(processes.contains(&"rgdev GPU 3: gv100 (0000:03:00.0)"), "{processes:?}");
    // GPU g's kernels are on process 1 + 2g, and the host's launches flow to them.
    for g in 0..4u64 {
        let pid = 1 + 2 * g;
        let peer_kernels = if g == 0 { 3 } else { 0 };
        let n = events.iter().filter(|e| e["cat"] == "kernel" && e["pid"] == pid).count();
        assert_eq!(n, 4 + peer_kernels, "GPU {g}");
        assert!(events.iter().any(|e| e["ph"] == "f" && e["name"] == "kernel" && e["pid"] == pid), "GPU {g}");
    }
    // One clock, deterministic: the same cycles in a second run.
    let cycles = |s: &serde_json::Value| -> Vec<(u64, u64, u64)> {
        let k = s["kernels"].as_array().unwrap();
        k.iter()
            .map(|k| {
                (k["device"].as_u64().unwrap(), k["start_cycle"].as_u64().unwrap(), k["end_cycle"].as_u64().unwrap())
            })
            .collect()
    };
    assert_eq!(cycles(&s), cycles(&stats("b").0));
    let _ = std::fs::remove_dir_all(dir);
}

/// A preset file in `dir`: gv100 with 16 MiB of VRAM, for oversubscription.
fn small_vram(dir: &Path) -> PathBuf {
    let preset = dir.join("small.toml");
    std::fs::write(&preset, "base = \"gv100\"\n[board]\nvram_size = 16777216\n").unwrap();
    preset
}

/// Managed memory paged on demand, oversubscribed: twice the VRAM of a 16 MiB preset,
/// touched whole by two kernels and by the host in turns, correct; every page migrated to
/// the GPU and back per kernel, pages evicted to make room (the statistics' counts).
#[test]
fn managed_memory_twice_the_vram() {
    let exe = compile("oversub", &[]);
    let dir = exe.parent().unwrap();
    let preset = small_vram(dir);
    let (json, trace) = (dir.join("stats.json"), dir.join("trace.json"));
    let env = [
        ("RGDEV_PRESET", preset.to_str().unwrap()),
        ("RGDEV_STATS_JSON", json.to_str().unwrap()),
        ("RGDEV_TRACE", trace.to_str().unwrap()),
        ("RGDEV_UVM", "paging"),
    ];
    let out = run_ok(&exe, &env);
    assert!(out.contains("VRAM 16 MiB, managed 32 MiB"), "{out}");
    // The trace shows the fault service at work on a track of its own.
    let t: serde_json::Value = read_json(&trace);
    let events = check_trace_schema(&t);
    let uvm: Vec<_> = events.iter().filter(|e| e["cat"] == "uvm").collect();
    assert!(uvm.iter().any(|e| e["name"].as_str().unwrap().contains("pages in")), "{uvm:?}");
    assert!(uvm.iter().any(|e| e["name"].as_str().unwrap().contains("back to the host")));
    // `rgdev timeline` draws them on a row of their own.
    let svg = timeline(&trace);
    assert!(svg.contains(">unified memory (migrations)<") && svg.contains("pages in"), "{svg}");
    let s: serde_json::Value = read_json(&json);
    let um = &s["unified_memory"];
    let pages = (32 << 20) / 4096;
    assert_eq!(um["migrations_to_gpu"].as_u64(), Some(2 * pages), "{um}");
    assert_eq!(um["migrations_to_host"].as_u64(), Some(2 * pages), "{um}");
    assert!(um["evictions"].as_u64().unwrap() >= pages / 2, "more than fits was brought in: {um}");
    let kernels = s["kernels"].as_array().unwrap();
    assert!(kernels.iter().all(|k| k["replayable_faults"].as_u64().unwrap() >= pages), "{kernels:?}");
    // Per kernel: every page came in for its faults, and pages left for room (evictions).
    for k in kernels {
        let (to_gpu, to_host) = (k["migrations_to_gpu"].as_u64().unwrap(), k["migrations_to_host"].as_u64().unwrap());
        assert_eq!(to_gpu, pages, "{k}");
        assert!(to_host >= pages / 4 && k["migrated_bytes"].as_u64() == Some((to_gpu + to_host) * 4096), "{k}");
    }
    // Every migration is a copy-engine job of the runtime's migration channel (4 KiB over
    // PCIe), told from the program's copies.
    let migrations: Vec<_> = s["copies"].as_array().unwrap().iter().filter(|c| c["migration"] == true).collect();
    assert_eq!(migrations.len() as u64, 4 * pages);
    assert!(migrations.iter().all(|c| c["bytes"] == 4096 && c["path"] == "PCIe" && c["api"].is_null()));
    let _ = std::fs::remove_dir_all(dir);
}

/// A preferred location on the device keeps pages from eviction (preferred.cu on a 16 MiB
/// preset): a kernel on 16 MiB of other managed memory, queued after one on the 4 MiB that
/// prefer the device, evicts its own pages, so a third kernel on the 4 MiB finds them all.
#[test]
fn a_preferred_location_keeps_pages_from_eviction() {
    let exe = compile("preferred", &[]);
    let dir = exe.parent().unwrap();
    let preset = small_vram(dir);
    let (out, s) = run_stats(&exe, &[("RGDEV_PRESET", preset.to_str().unwrap())]);
    assert!(out.contains("VRAM 16 MiB, a 4 MiB, b 16 MiB"));
    let k = |name: &str| {
        let k = kernel(&s, name);
        let n = |f: &str| k[f].as_u64().unwrap();
        (n("replayable_faults") > 0, n("migrations_to_gpu"), n("migrations_to_host"))
    };
    assert_eq!(k("_Z10first_on_aPjm"), (true, 1024, 0));
    let (_, b_in, b_out) = k("_Z8all_of_bPjm");
    assert!(b_in == 4096 && b_out > 0, "b's pages in, room made: {b_in} {b_out}");
    assert_eq!(k("_Z10again_on_aPjm"), (false, 0, 0), "a stayed");
    let _ = std::fs::remove_dir_all(dir);
}

/// `rgdev run --mmio-trace`: the driver's register sequence for a CUDA program, from the
/// probe on, with BAR1/PRAMIN runs folded, narrowed by a filter, or word by word.
#[test]
fn mmio_trace_of_a_program() {
    let exe = compile_in("mmio-run", "vecadd", &[]);
    let dir = exe.parent().unwrap();
    let trace = |name: &str, extra: &[&str]| {
        let file = dir.join(name);
        let out = rgdev().arg("run").arg("--mmio-trace").arg(&file).args(extra).arg(&exe).output().unwrap();
        let (o, e) = text(&out);
        assert!(out.status.success() && o.contains("all checks passed"), "{o}{e}");
        std::fs::read_to_string(&file).unwrap()
    };
    let folded = trace("folded.txt", &[]);
    let lines: Vec<&str> = folded.lines().collect();
    // The probe reads the PCI identity and BOOT_0 first; channels are set up in PFIFO.
    assert!(lines[0].starts_with("CR 4 0 0x0 0x"), "{}", lines[0]);
    assert!(folded.contains(" NV_PMC_BOOT_0\n") && folded.contains("NV_PFIFO_CHAN_INST[0]"), "{folded}");
    assert!(folded.contains("NV_PFIFO_RUNLIST_SUBMIT") && folded.contains("NV_PFB_TLB_FLUSH_TRIGGER"));
    let runs = lines.iter().filter(|l| l.contains(" (run of ")).count();
    assert!(runs > 0 && lines.len() < 1000, "{} lines, {runs} runs", lines.len());
    let full = trace("full.txt", &["--mmio-no-fold"]);
    let words: u64 = lines
        .iter()
        .map(|l| l.split(" (run of ").nth(1).map_or(1, |r| r.split(' ').next().unwrap().parse::<u64>().unwrap()))
        .sum();
    assert_eq!(full.lines().count() as u64, words, "a folded trace accounts for every access");
    let pfifo = trace("pfifo.txt", &["--mmio-filter", "PFIFO,-NV_PFIFO_INTR_0"]);
    assert!(
        pfifo.lines().count() > 3 && pfifo.lines().all(|l| l.contains(" NV_PFIFO_") && !l.contains("INTR_0")),
        "{pfifo}"
    );
    let out = rgdev().args(["run", "--mmio-trace", "x", "--mmio-filter", "PFOO"]).arg(&exe).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("unknown unit or register `PFOO`"));
    let _ = std::fs::remove_dir_all(dir);
}

/// A complete slice: start, end (µs) and name.
type Slice = (f64, f64, String);

/// What Perfetto's JSON importer needs of a trace (its trace processor cannot be fetched
/// here): known phases with their fields, and complete slices of one thread properly
/// nested (a partial overlap is dropped on import).
fn check_trace_schema(t: &serde_json::Value) -> Vec<serde_json::Value> {
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

/// The trace's host side: a track per host thread with its API calls and NVTX ranges
/// (pushed ranges as nested slices, start/end ranges as async slices, marks, thread
/// names), and a flow from every launch call to its kernel; without a trace NVTX answers
/// as with no tool attached (the program checks both).
#[test]
fn api_calls_and_nvtx_ranges_in_the_trace() {
    let exe = compile_in("nvtx", "nvtx", &[]);
    let dir = exe.parent().unwrap();
    run_ok(&exe, &[]);
    let trace = dir.join("trace.json");
    let out = rgdev().arg("run").arg("--trace").arg(&trace).arg(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success() && o.contains("all checks passed"), "{o}{e}");
    let t: serde_json::Value = read_json(&trace);
    let ev = check_trace_schema(&t);
    let named =
        |name: &str, ph: &str| ev.iter().filter(|e| e["name"] == name && e["ph"] == ph).cloned().collect::<Vec<_>>();
    let thread = |tid: u64| {
        ev.iter()
            .find(|e| e["name"] == "thread_name" && e["pid"] == 0 && e["tid"] == tid)
            .map(|e| e["args"]["name"].clone())
    };
    assert_eq!(thread(1), Some("main (host thread 1)".into()));
    assert_eq!(thread(2), Some("host thread 2".into()));
    for (range, tid) in [("setup", 1), ("compute", 1), ("streams", 1), ("worker", 2)] {
        let r = named(range, "X");
        assert!(r.len() == 1 && r[0]["pid"] == 0 && r[0]["tid"] == tid && r[0]["cat"] == "nvtx", "{range}: {r:?}");
    }
    assert_eq!(named("launched", "i").len(), 1);
    assert!(named("wait", "b").len() == 1 && named("wait", "e").len() == 1);
    // The launches inside "compute" on thread 1, and the worker's on thread 2.
    let compute = &named("compute", "X")[0];
    let (c0, c1) =
        (compute["ts"].as_f64().unwrap(), compute["ts"].as_f64().unwrap() + compute["dur"].as_f64().unwrap());
    let launches = named("cuLaunchKernel", "X");
    assert_eq!(launches.len(), 4, "two streams, the worker, clocked");
    let inside = launches.iter().filter(|l| l["tid"] == 1 && (c0..=c1).contains(&l["ts"].as_f64().unwrap())).count();
    assert_eq!(inside, 2);
    assert_eq!(launches.iter().filter(|l| l["tid"] == 2).count(), 1);
    // Every kernel has one flow in, from a launch call of the thread that made it.
    let kernels: Vec<_> = ev.iter().filter(|e| e["cat"] == "kernel").collect();
    assert_eq!(kernels.len(), 4);
    for k in &kernels {
        let ins: Vec<_> = ev
            .iter()
            .filter(|f| {
                f["ph"] == "f" && f["pid"] == 1 && f["tid"] == k["tid"] && f["ts"] == k["ts"] && f["name"] == "kernel"
            })
            .collect();
        assert_eq!(ins.len(), 1, "{k}");
        let from = ev.iter().find(|s| s["ph"] == "s" && s["id"] == ins[0]["id"]).expect("the flow's start");
        assert!(launches.iter().any(|l| l["tid"] == from["tid"] && l["ts"] == from["ts"]), "{from}");
    }
    // Copies are joined to the calls that made them too.
    let copies = ev.iter().filter(|e| e["cat"] == "copy").count();
    let copy_flows = ev.iter().filter(|e| e["ph"] == "f" && e["name"] == "copy").count();
    assert!(copies >= 4 && copy_flows == copies, "{copies} copies, {copy_flows} flows");
    let _ = std::fs::remove_dir_all(dir);
}

/// Kernels launched on streams other than the default stream keep their names in the
/// statistics (the kernel is looked up on the default stream's channel and runs on the
/// stream's).
#[test]
fn statistics_describe_the_run_and_name_every_kernel() {
    let exe = compile_in("streams-stats", "streams", &[]);
    let dir = exe.parent().unwrap();
    let json = dir.join("stats.json");
    let trace = dir.join("trace.json");
    let csv = dir.join("stats.csv");
    let out = rgdev()
        .args(["run", "--stats-json"])
        .arg(&json)
        .arg("--stats-csv")
        .arg(&csv)
        .arg("--trace")
        .arg(&trace)
        .arg("--")
        .arg(&exe)
        .output()
        .expect("rgdev run runs");
    let (o, e) = text(&out);
    assert!(out.status.success() && o.contains("all checks passed"), "{o}{e}");
    // The trace: a track per stream, named by context and stream, every kernel named, and
    // copies with their direction.
    let t: serde_json::Value = read_json(&trace);
    let events = t["traceEvents"].as_array().expect("trace events");
    let tracks: Vec<&str> =
        events.iter().filter(|e| e["name"] == "thread_name").filter_map(|e| e["args"]["name"].as_str()).collect();
    assert!(tracks.iter().filter(|n| n.contains(" stream 0x")).count() >= 2, "{tracks:?}");
    assert!(
        events.iter().filter(|e| e["cat"] == "kernel").all(|e| !e["name"].as_str().unwrap().starts_with("kernel@"))
    );
    assert!(events.iter().any(|e| e["cat"] == "copy" && e["args"]["kind"] == "DtoH"));
    let stats: serde_json::Value = read_json(&json);
    let kernels = stats["kernels"].as_array().expect("kernels");
    let channels: std::collections::BTreeSet<u64> = kernels.iter().filter_map(|k| k["channel"].as_u64()).collect();
    assert!(channels.len() >= 2, "kernels on several streams: {channels:?}");
    for k in kernels {
        let name = k["name"].as_str().unwrap_or("");
        assert!(name == "_Z3addPffi" || name == "_Z11copy_scaledPKfPffi", "{name}");
        // Each kernel with its resources, context and stream.
        assert!(k["registers"].as_u64().unwrap_or(0) > 0 && k["shared_bytes"].is_u64(), "{k}");
        assert!(k["context"].is_string() && k["stream"].is_string(), "{k}");
    }
    // The CSV form: a row per kernel and per copy, as in the JSON.
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("type,name,context,stream,channel,grid,block,registers,"), "{header}");
    let columns = header.split(',').count();
    assert!(csv.lines().all(|l| l.split(',').count() == columns), "ragged rows");
    assert_eq!(csv.lines().filter(|l| l.starts_with("kernel,")).count(), kernels.len());
    assert_eq!(csv.lines().filter(|l| l.starts_with("copy,")).count(), stats["copies"].as_array().unwrap().len());
    // The file describes its run.
    assert_eq!(stats["schema_version"], 2);
    assert!(stats["version"]["rgdev"].is_string() && stats["version"]["commit"].is_string());
    assert_eq!(stats["config"]["name"], "gv100");
    assert!(stats["config"]["board"]["sms"].is_u64() && stats["config"]["l2"].is_object());
    assert!(stats["command_line"][0].as_str().unwrap().ends_with("streams"));
    assert!(stats["host"]["wall_seconds"].as_f64().unwrap() > 0.0);
    let copies = stats["copies"].as_array().expect("copies");
    // Each copy's memory kinds and the call that made it: streams.cu copies from pinned
    // memory asynchronously and from pageable memory synchronously.
    let has = |kind: &str, src: &str, dst: &str, api: &str| {
        copies.iter().any(|c| c["kind"] == kind && c["src_kind"] == src && c["dst_kind"] == dst && c["api"] == api)
    };
    assert!(has("HtoD", "pinned", "device", "cuMemcpyHtoDAsync_v2"), "{copies:?}");
    assert!(has("DtoH", "device", "pinned", "cuMemcpyDtoHAsync_v2"), "{copies:?}");
    assert!(has("DtoH", "device", "pageable", "cuMemcpyDtoH_v2"), "{copies:?}");
    assert!(copies.iter().any(|c| c["kind"] == "Memset" && c["src_kind"].is_null() && c["dst_kind"] == "device"));
    assert!(stats["kernels"].as_array().unwrap().iter().all(|k| k["api"] == "cuLaunchKernel"));
    assert!(header.ends_with(",bytes,path,src_kind,dst_kind,device"), "{header}");
    for kind in ["HtoD", "DtoH", "Memset"] {
        assert!(copies.iter().any(|c| c["kind"] == kind), "no {kind} copy");
    }
    // The summary: kernels by name and copies by kind, largest first, as text and CSV.
    let out = rgdev().args(["run", "--summary", "--"]).arg(&exe).output().expect("rgdev run runs");
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{e}");
    let rows: Vec<&str> = e.lines().skip_while(|l| !l.contains("Time(%)")).skip(1).collect();
    assert!(rows[0].starts_with(" GPU activities:") && rows[0].ends_with("_Z3addPffi"), "{e}");
    // The calls column: the program launches `add` well over a thousand times.
    let calls = |r: &str| r.split_whitespace().rev().nth(4).and_then(|c| c.parse::<u64>().ok()).unwrap_or(0);
    assert!(rows.iter().any(|r| r.ends_with("_Z3addPffi") && calls(r) > 1000), "{e}");
    assert!(
        rows.iter().any(|r| r.ends_with("[CUDA memcpy HtoD]")) && rows.iter().any(|r| r.ends_with("[CUDA memset]"))
    );
    // nvprof's second table: the API calls, in simulated time: a call lasts as long as it
    // waited for the device (a synchronization; a launch whose stream's ring was full).
    let api: Vec<&&str> = rows.iter().skip_while(|r| !r.starts_with("      API calls:")).collect();
    assert!(!api.is_empty(), "{e}");
    assert!(api.iter().any(|r| r.ends_with("cuLaunchKernel") && calls(r) > 1000), "{e}");
    assert!(api.iter().any(|r| r.ends_with("cuStreamSynchronize") || r.ends_with("cuCtxSynchronize")), "{e}");
    let out = rgdev().args(["run", "--csv"]).arg(&exe).output().expect("rgdev run runs");
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    let csv: Vec<&str> = e.lines().skip_while(|l| !l.starts_with("Type,")).collect();
    assert_eq!(csv[0], "Type,Time(%),Time (ns),Calls,Avg (ns),Min (ns),Max (ns),Name");
    for kind in ["GPU activities", "API calls"] {
        let rows = csv[1..].iter().filter(|l| l.starts_with(&format!("{kind},")));
        let pcts: f64 = rows.filter_map(|l| l.split(',').nth(1)?.parse::<f64>().ok()).sum();
        assert!((pcts - 100.0).abs() < 0.1, "{kind}: {e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The fat binary chosen by architecture: a program built for sm_70 only is refused on a
/// compute 2.0 preset with cudaErrorNoKernelImageForDevice and a line saying what it
/// holds; built for both, it runs on either.
#[test]
fn ptx_is_chosen_by_the_devices_architecture() {
    let only70 = compile_in("vecadd-sm70", "vecadd", &["-arch=sm_70"]);
    let out = rgdev().args(["run", "--preset", "gf100", "--"]).arg(&only70).output().unwrap();
    let (o, e) = text(&out);
    assert!(!out.status.success(), "{o}{e}");
    assert!(e.contains("cudaErrorNoKernelImageForDevice"), "{e}");
    assert!(e.contains("PTX for sm_70"), "{e}");
    let both = compile_in("vecadd-both", "vecadd", &["-arch=sm_20", "-gencode", "arch=compute_70,code=sm_70"]);
    for preset in ["gf100", "gv100"] {
        let out = rgdev().args(["run", "--preset", preset, "--"]).arg(&both).output().unwrap();
        let (o, e) = text(&out);
        assert!(out.status.success() && o.contains("all checks passed"), "{preset}: {o}{e}");
    }
    let _ = std::fs::remove_dir_all(only70.parent().unwrap());
    let _ = std::fs::remove_dir_all(both.parent().unwrap());
}

/// A program compiled by clang itself against rgdev's headers (the fat binary from
/// `rgdev cc --fatbin`): clang assumes a CUDA older than 9.2 and emits the
/// cudaConfigureCall / cudaSetupArgument / cudaLaunch path. It runs, with the same
/// output, under the timing model and in functional mode.
#[test]
fn clang_built_program_runs_in_both_modes() {
    let dir = scratch("clang");
    let src = root().join("tests/cuda/templates.cu");
    let fatbin = dir.join("templates.fatbin");
    let st = rgdev().arg("cc").arg("--fatbin").arg(&src).arg("-o").arg(&fatbin).status().unwrap();
    assert!(st.success());
    let obj = dir.join("templates.o");
    let clang = if Command::new("clang-14").arg("--version").output().is_ok() { "clang-14" } else { "clang" };
    let out = Command::new(clang)
        .args(["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-c", "-I"])
        .arg(root().join("backend-user/include"))
        .arg("-I")
        .arg(root().join("tests/cuda"))
        .args(["-include", "cuda_runtime.h", "-Xclang", "-fcuda-include-gpubinary", "-Xclang"])
        .arg(&fatbin)
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("clang runs");
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    let nm = Command::new("nm").arg("-u").arg(&obj).output().unwrap();
    let undefined = String::from_utf8_lossy(&nm.stdout);
    assert!(undefined.contains("cudaConfigureCall") && undefined.contains("cudaSetupArgument"), "{undefined}");
    let exe = dir.join("templates");
    let st = Command::new(clang)
        .arg("--driver-mode=g++")
        .arg(&obj)
        .arg("-L")
        .arg(release_dir())
        .args(["-lcudart", "-o"])
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success());
    let lib = release_dir();
    let lib = lib.to_str().unwrap();
    let timing = run_ok(&exe, &[("LD_LIBRARY_PATH", lib)]);
    let toml = dir.join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    let functional = run_ok(&exe, &[("LD_LIBRARY_PATH", lib), ("RGDEV_PRESET", toml.to_str().unwrap())]);
    assert_eq!(timing, functional);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `rgdev cc` follows nvcc's conventions: help on stdout with exit 0, a bad option named
/// with exit 2, a compile error as clang's diagnostics with exit 1, `-c` then a link of
/// objects, and `.cu` with `.cpp` and `.c` in one program.
#[test]
fn rgdev_cc_command_line() {
    let out = rgdev().args(["cc", "--help"]).output().unwrap();
    assert!(out.status.success() && text(&out).0.contains("-arch=sm_XX"));
    let out = rgdev().args(["cc", "--bogus", "x.cu"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--bogus"));

    // nvcc's options: recognized, and each unknown one named.
    let out = rgdev().args(["cc", "-ftz=maybe", "x.cu"]).output().unwrap();
    assert!(out.status.code() == Some(2) && text(&out).1.contains("-ftz"));
    let out = rgdev().args(["cc", "-Xptxas", "-v", "--expt-relaxed-constexpr", "--nonsense", "x.cu"]).output().unwrap();
    assert!(out.status.code() == Some(2) && text(&out).1.contains("--nonsense"));

    let dir = scratch("cc");
    // -Xptxas -v reports each kernel's resources; -maxrregcount reaches the JIT as .maxnreg;
    // an unknown ptxas option is named by rgdev ptxas.
    let k = dir.join("k.cu");
    std::fs::write(&k, "__global__ void k(float *p) { p[threadIdx.x] = sinf(p[threadIdx.x]) / 3.0f; }\n").unwrap();
    let out = rgdev()
        .args(["cc", "--ptx", "-maxrregcount=40", "-use_fast_math", "-Xptxas", "-v,-O3", "-lineinfo", "-m64"])
        .args(["-ccbin", "g++", "--extended-lambda", "-Wno-deprecated-gpu-targets"])
        .arg(&k)
        .arg("-o")
        .arg(dir.join("k.ptx"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(text(&out).0.contains("ptxas info    : Used "), "{}", text(&out).0);
    let ptx = std::fs::read_to_string(dir.join("k.ptx")).unwrap();
    assert!(ptx.contains(".maxnreg 40"), "{ptx}");
    assert!(ptx.contains("div.approx") && ptx.contains("sin.approx"), "{ptx}");
    let out =
        rgdev().args(["cc", "--ptx", "-Xptxas", "--frob"]).arg(&k).arg("-o").arg(dir.join("x.ptx")).output().unwrap();
    assert!(!out.status.success() && text(&out).1.contains("--frob"), "{:?}", text(&out));
    let bad = dir.join("bad.cu");
    std::fs::write(&bad, "__global__ void k() { undeclared(); }\n").unwrap();
    let out = rgdev().arg("cc").arg(&bad).arg("-o").arg(dir.join("bad")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("undeclared"), "{}", text(&out).1);

    // A kernel and its launcher in a .cu, main in a .cpp that knows only a C++ function.
    let cu = dir.join("part.cu");
    std::fs::write(
        &cu,
        "__global__ void twice(int *p) { p[threadIdx.x] *= 2; }\n\
         int run_twice(int *h, int n) {\n\
           int *d; cudaMalloc(&d, n * sizeof(int));\n\
           cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);\n\
           twice<<<1, n>>>(d);\n\
           return cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);\n\
         }\n",
    )
    .unwrap();
    let cpp = dir.join("main.cpp");
    std::fs::write(
        &cpp,
        "#include <cstdio>\nint run_twice(int *h, int n);\nextern \"C\" int offset(void);\n\
         int main() { int h[64]; for (int i = 0; i < 64; i++) h[i] = i + offset();\n\
           int e = run_twice(h, 64); int bad = 0; for (int i = 0; i < 64; i++) bad += h[i] != 2 * (i + 3);\n\
           if (e == 0 && bad == 0) std::puts(\"all checks passed\"); return e || bad; }\n",
    )
    .unwrap();
    // A C file in the same program, built with the runtime's C header.
    let c = dir.join("offset.c");
    std::fs::write(&c, "#include <cuda_runtime_api.h>\nint offset(void) { int v = 0; cudaRuntimeGetVersion(&v); return v == 12090 ? 3 : -1000; }\n").unwrap();
    let obj = dir.join("part.o");
    let st = rgdev().args(["cc", "-c"]).arg(&cu).arg("-o").arg(&obj).status().unwrap();
    assert!(st.success() && obj.exists());
    let exe = dir.join("mix");
    let st = rgdev().arg("cc").arg(&obj).arg(&cpp).arg(&c).arg("-o").arg(&exe).status().unwrap();
    assert!(st.success());
    run_ok(&exe, &[]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One logical GPU over four (`gv100x4u`, issue 15 item 5): unmodified Runtime API
/// programs see one device and pass their own checks while their allocations are split
/// by pages over the four GPUs and every grid by blocks; the statistics show each GPU's
/// part of each kernel, and those parts cover the grid.
#[test]
fn one_logical_gpu_over_four_runs_unmodified_programs() {
    let unified = [("RGDEV_PRESET", "gv100x4u")];
    let programs =
        ["vecadd", "matmul", "streams", "constant", "dynshared", "uva", "managed", "printf", "errors", "texture"];
    for name in programs {
        let exe = compile_in(&format!("unified-{name}"), name, &[]);
        let (_, s) = run_stats(&exe, &unified);
        if name == "managed" {
            // Managed memory is paged there too: each GPU's part of a kernel brings in the
            // pages its blocks touch; a counter every part's atomics hit stays where it is
            // after two moves, reached over the links.
            let moved = |d: u64| -> u64 {
                let on =
                    s["kernels"].as_array().unwrap().iter().filter(|k| k["name"] == "_Z5scalePfif" && k["device"] == d);
                on.map(|k| k["migrations_to_gpu"].as_u64().unwrap()).sum()
            };
            assert!((0..4).all(|d| moved(d) > 0), "{}", s["unified_memory"]);
        }
        if name == "texture" {
            // Texture and surface objects: every GPU's part samples the first GPU's arrays
            // through its pools, over the links.
            for kernel in ["_Z9fetch_intyPii", "_Z11surf_doubleyii", "_Z11via_textureyPfi"] {
                let on =
                    |d: u64| s["kernels"].as_array().unwrap().iter().any(|k| k["name"] == kernel && k["device"] == d);
                assert!((0..4).all(on), "{kernel}: a part on each GPU");
            }
        }
        if name == "vecadd" {
            let (json, trace) = (exe.with_extension("json"), exe.with_extension("trace.json"));
            let mut run = rgdev();
            run.args(["run", "--preset", "gv100x4u", "--stats-json"]).arg(&json).arg("--trace").arg(&trace);
            let out = run.arg("--").arg(&exe).output().expect("rgdev run runs");
            assert!(out.status.success(), "{:?}", text(&out));
            let s: serde_json::Value = read_json(&json);
            assert_eq!(s["devices"].as_array().unwrap().len(), 4);
            for kernel in ["_Z6vecaddPKfS0_Pfi", "_Z13scale_stridedPffi"] {
                let parts: Vec<&serde_json::Value> =
                    s["kernels"].as_array().unwrap().iter().filter(|k| k["name"] == kernel).collect();
                let devices: Vec<u64> = parts.iter().map(|k| k["device"].as_u64().unwrap()).collect();
                assert_eq!(devices, [0, 1, 2, 3], "{kernel}: a part on each GPU");
                let grid = parts[0]["grid"][0].as_u64().unwrap();
                let mut next = 0;
                for k in &parts {
                    let (first, count) = (k["blocks"][0].as_u64().unwrap(), k["blocks"][1].as_u64().unwrap());
                    assert_eq!((first, k["grid"][0].as_u64().unwrap()), (next, grid), "{kernel}: contiguous ranges");
                    assert!(count > 0 && count.abs_diff(grid / 4) <= 1, "{kernel}: a quarter each");
                    next += count;
                }
                assert_eq!(next, grid, "{kernel}: the ranges cover the grid");
            }
            // The grid-stride kernel reads and writes every GPU's quarter from every GPU:
            // the timeline has each GPU's traffic over the links.
            let svg = timeline(&trace);
            for g in 0..4 {
                assert!(svg.contains(&format!(">GPU {g}: links (peer traffic)<")), "GPU {g}");
            }
            assert!(svg.contains("_Z13scale_stridedPffi: ") && svg.contains(" over links"));
        }
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}

/// Today's parts (issue 39): the Runtime API programs run unmodified on the `h200` and
/// `a100` presets (`RGDEV_PRESET`), each program's own checks passing; `rgdev info` reports
/// what the parts report (the H200's figures as `../shared/gpu`'s measurements give them:
/// 132 SMs, a 60 MiB L2, 228 KiB of shared memory per SM, compute 9.0).
#[test]
fn todays_parts_run_unmodified_programs() {
    for (preset, facts) in [
        (
            "h200",
            [
                "CUDA capability                    9.0",
                "multiprocessors                    132",
                "L2 cache (bytes)                   62914560",
                "shared memory per SM (bytes)       233472",
            ],
        ),
        (
            "a100",
            [
                "CUDA capability                    8.0",
                "multiprocessors                    108",
                "L2 cache (bytes)                   41943040",
                "shared memory per SM (bytes)       167936",
            ],
        ),
    ] {
        let out = rgdev().args(["info", "--preset", preset]).output().expect("rgdev info runs");
        let (info, err) = text(&out);
        assert!(out.status.success() && facts.iter().all(|f| info.contains(f)), "{preset}:\n{info}{err}");
    }
    // (streams.cu is left out: it expects a kernel of gv100's speed to be still running
    // at its first query, which a faster part need not be.)
    let programs: [(&str, &[&str]); 15] = [
        ("vecadd", &[]),
        ("matmul", &[]),
        ("constant", &[]),
        ("dynshared", &[]),
        ("uva", &[]),
        ("managed", &[]),
        ("printf", &[]),
        ("errors", &[]),
        ("texture", &[]),
        ("fp16", &[]),
        ("mathlib", &["-std=c++17"]),
        ("cg", &[]),
        ("wmma", &["-arch=sm_80"]),
        ("templates", &["-std=c++17"]),
        ("rounding", &["-Xcompiler", "-frounding-math"]),
    ];
    for (name, flags) in programs {
        let exe = compile_in(&format!("today-{name}"), name, flags);
        for preset in ["h200", "a100"] {
            let (_, s) = run_stats(&exe, &[("RGDEV_PRESET", preset)]);
            assert_eq!(s["devices"][0]["preset"], preset, "{name}");
        }
    }
}

/// Shared memory beyond 48 KiB per block (tests/cuda/shared_optin.cu): each part's opt-in
/// limit, a kernel that opts in using all of it, and the refusals without or past it.
#[test]
fn kernels_opt_into_the_shared_memory_of_their_part() {
    let exe = compile("shared_optin", &[]);
    for (preset, optin) in [("gv100", 96 * 1024), ("a100", 163 * 1024), ("h200", 227 * 1024)] {
        let out = run_ok(&exe, &[("RGDEV_PRESET", preset)]);
        assert!(out.contains(&format!("optin {optin} per_block 49152")), "{preset}: {out}");
    }
}
