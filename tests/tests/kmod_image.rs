//! The freestanding kernel-side image: run it, check its exit status, and decode its
//! defmt log with the image's own interned-string table.

use std::path::PathBuf;
use std::process::Command;

fn image() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or(root.join("target"));
    target.join("x86_64-unknown-none/release/rgdev-kmod")
}

fn decode(elf: &[u8], bytes: &[u8]) -> Vec<String> {
    let table = defmt_decoder::Table::parse(elf).expect("parse .defmt").expect("the image has a defmt table");
    let mut dec = table.new_stream_decoder();
    dec.received(bytes);
    let mut lines = Vec::new();
    loop {
        match dec.decode() {
            Ok(frame) => {
                lines.push(format!("{} {}", frame.level().map_or("-", |l| l.as_str()), frame.display_message()))
            }
            Err(defmt_decoder::DecodeError::UnexpectedEof) => break,
            Err(e) => panic!("malformed defmt stream after {lines:?}: {e:?}"),
        }
    }
    lines
}

#[test]
fn kernel_image_does_a_copy_round_trip_and_reports_through_defmt() {
    let img = image();
    assert!(
        img.exists(),
        "{} is missing: run README's test command (it builds backend-kmod for x86_64-unknown-none first)",
        img.display()
    );
    let out = Command::new(&img).output().expect("run the image");
    let elf = std::fs::read(&img).unwrap();
    let log = decode(&elf, &out.stdout);
    let text = log.join("\n");
    println!("{text}");
    assert_eq!(out.status.code(), Some(0), "image failed; its log:\n{text}");
    let sms = fake_pci::DeviceConfig::default().board.sms;
    assert!(text.contains(&format!("info probe: 10de:06c0 BOOT_0 0x140000a1, 64 MiB VRAM, {sms} SMs")), "{text}");
    assert!(text.contains("info copy round trip: 3145728 bytes identical"), "{text}");
    assert!(text.contains("info kernel vecadd: 65536 elements correct"), "{text}");
    // VRAM and the heap are consistent: exhausting either is CUDA_ERROR_OUT_OF_MEMORY (2).
    assert!(text.contains("x 8 MiB written: CUresult 2"), "{text}");
    assert!(text.contains("info overcommitted board: filling 128 MiB of VRAM ends in CUresult 2"), "{text}");
    assert!(text.contains("info context destroyed"), "{text}");
    // A system of two GPUs on one machine (fake-pci's `Machine`: the link, both stepped
    // together): bring-up at their own places, peer access, a copy and a kernel's loads
    // over the link (1 MiB copied + 2 MiB read by the kernel), one clock.
    assert!(
        text.contains("info two GPUs: 1048576 bytes GPU 0 -> GPU 1 over the link true, a kernel on GPU 1 reads GPU 0's memory true, 3145728 bytes read over the link, ordinals in handles true, clocks agree true"),
        "{text}"
    );
    // Managed memory paged by runtime-core's unified-memory service over the image's
    // unified range: 64 pages of 4 KiB to the GPU on first touch, all back at the host's.
    assert!(
        text.contains(
            "info managed memory: 65536 floats doubled in place true, pages to the GPU 64, back to the host 64"
        ),
        "{text}"
    );
    assert!(text.contains("exit 0"), "{text}");
    // The one error reported is the overcommitted board's fault, naming its reason.
    let errors: Vec<&String> = log.iter().filter(|l| l.contains("error")).collect();
    assert!(errors.len() == 1 && errors[0].contains("NoBacking"), "{text}");
}
