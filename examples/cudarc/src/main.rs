//! Vector add through [cudarc](https://crates.io/crates/cudarc), unchanged from how it is
//! written for NVIDIA's driver: PTX loaded with cuModuleLoadData, a launch with
//! kernelParams, copies on the default stream. Run it on rgdev with
//!
//! ```sh
//! cargo build --release
//! LD_LIBRARY_PATH=target/release target/release/cudarc-vecadd kernels/vecadd.ptx
//! ```
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "kernels/vecadd.ptx".into());
    let ctx = CudaContext::new(0)?;
    // A stream of its own; cudarc tracks buffer use across streams with CUDA events.
    let (major, minor) = ctx.compute_capability()?;
    println!("device: {} (compute capability {major}.{minor})", ctx.name()?);
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(Ptx::from_src(std::fs::read_to_string(&path)?))?;
    let f = module.load_function("vecadd")?;

    let n = 100_000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let da = stream.memcpy_stod(&a)?;
    let db = stream.memcpy_stod(&b)?;
    let mut dc = stream.alloc_zeros::<f32>(n)?;
    let len = n as i32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&da).arg(&db).arg(&mut dc).arg(&len);
    // SAFETY: the arguments match vecadd(const float*, const float*, float*, int).
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let c = stream.memcpy_dtov(&dc)?;

    let wrong = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    if wrong != 0 {
        return Err(format!("{wrong} of {n} sums wrong").into());
    }
    println!("vecadd of {n} elements through cudarc: correct");
    Ok(())
}
