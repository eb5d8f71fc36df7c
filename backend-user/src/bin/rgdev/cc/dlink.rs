//! `rgdev cc`'s device link of relocatable device code: the fat binaries of `-rdc` objects
//! joined into one, with the registration stub nvcc's device link would define.

use super::Driver;
use std::ffi::OsString;
use std::path::PathBuf;

/// The contents of section `name` of ELF64 object `b`, if it has one.
fn elf_section<'a>(b: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as usize);
    let u32_at = |at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize);
    let u64_at = |at: usize| Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?) as usize);
    if b.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28)?, u16_at(0x3A)?, u16_at(0x3C)?, u16_at(0x3E)?);
    let header = |k: usize| shoff.checked_add(k.checked_mul(shentsize)?);
    let strtab = u64_at(header(shstrndx)? + 0x18)?;
    for k in 0..shnum {
        let h = header(k)?;
        let name_at = strtab.checked_add(u32_at(h)?)?;
        let end = b.get(name_at..)?.iter().position(|&c| c == 0)?;
        if &b[name_at..name_at + end] == name.as_bytes() {
            let (off, size) = (u64_at(h + 0x18)?, u64_at(h + 0x20)?);
            return b.get(off..off.checked_add(size)?);
        }
    }
    None
}

/// The device link of relocatable device code (`-rdc`): when objects carry clang's
/// `__nv_relfatbin` and `__nv_module_id` sections, one fat binary with every object's PTX
/// (libcudart links the modules when it loads them) and, for each module id, the
/// `__cudaRegisterLinkedBinary<id>` that nvcc's device link would define, registering it.
/// Returns the stub's object file.
pub(super) fn device_link(d: &Driver, objects: &[OsString]) -> Result<Option<PathBuf>, String> {
    let mut entries: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for o in objects {
        let Ok(bytes) = std::fs::read(o) else { continue }; // libraries: the linker's
        if elf_section(&bytes, "rgdev_dlink").is_some() {
            return Ok(None); // linked already (`-dlink`): its object is among the inputs
        }
        let (Some(fb), Some(id)) = (elf_section(&bytes, "__nv_relfatbin"), elf_section(&bytes, "__nv_module_id"))
        else {
            continue;
        };
        let id = String::from_utf8_lossy(&id[..id.iter().position(|&c| c == 0).unwrap_or(id.len())]).into_owned();
        let es = ptx::fatbin::entries(fb).map_err(|e| format!("{}: {e}", o.to_string_lossy()))?;
        entries.extend(es.iter().filter(|e| e.kind == ptx::fatbin::PTX).map(|e| (e.arch, e.payload.to_vec())));
        if id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') && !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return Ok(None);
    }
    let table: Vec<(u16, u32, &[u8])> = entries.iter().map(|(arch, p)| (ptx::fatbin::PTX, *arch, &p[..])).collect();
    let image = ptx::fatbin::build(&table);
    let mut c = String::from(
        "/* rgdev cc's device link: the relocatable device code of the program's objects, linked when it loads. */\n",
    );
    c += "static const unsigned char rgdev_fatbin[] __attribute__((aligned(8))) = {";
    for (k, byte) in image.iter().enumerate() {
        if k % 24 == 0 {
            c += "\n   ";
        }
        c += &format!(" {byte},");
    }
    c += "\n};\n";
    c += "static const struct { int magic, version; const void *data; void *filler; } rgdev_wrapper = \
          {0x466243b1, 1, rgdev_fatbin, 0};\n\
          extern void **__cudaRegisterFatBinary(void *);\n\
          extern void __cudaRegisterFatBinaryEnd(void **);\n\
          __attribute__((section(\"rgdev_dlink\"), used)) static const char rgdev_dlink_mark = 1;\n\
          static void **rgdev_handle;\n\
          static void **rgdev_register(void) {\n\
          \x20   if (!rgdev_handle) {\n\
          \x20       rgdev_handle = __cudaRegisterFatBinary((void *)&rgdev_wrapper);\n\
          \x20       __cudaRegisterFatBinaryEnd(rgdev_handle);\n\
          \x20   }\n\
          \x20   return rgdev_handle;\n\
          }\n";
    for id in &ids {
        c += &format!(
            "void __cudaRegisterLinkedBinary{id}(void (*cb)(void **), void *fb, void *id, void (*d)(void *)) {{\n\
             \x20   (void)fb;\n    (void)id;\n    (void)d;\n    cb(rgdev_register());\n}}\n"
        );
    }
    let src = d.tmp.join("dlink.c");
    std::fs::write(&src, c).map_err(|e| format!("{}: {e}", src.display()))?;
    let obj = d.tmp.join("dlink.o");
    let v: Vec<OsString> = vec!["-x".into(), "c".into(), "-c".into(), "-o".into(), obj.clone().into(), src.into()];
    d.run(&v)?;
    Ok(Some(obj))
}
