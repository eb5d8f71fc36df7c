//! The fat binary container that nvcc and clang embed in a program: a 16-byte header
//! (magic 0xBA55ED50, version 1, header size, bytes of entries) and entries one after
//! another, each a header (kind: 1 PTX, 2 ELF; its own size; the payload's size; flags;
//! the architecture as 10 x major + minor) and its payload. rgdev runs PTX: the entry
//! for the highest architecture the device can run is chosen, as the CUDA runtime
//! chooses; machine code (ELF) is reported, never run.

use alloc::vec::Vec;
use core::fmt;

/// One entry of a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// 1: PTX, 2: ELF (SASS).
    pub kind: u16,
    /// The architecture, 10 x major + minor (70: sm_70 / compute_70).
    pub arch: u32,
    /// The entry's flags.
    pub flags: u64,
    /// The payload as stored.
    pub payload: &'a [u8],
}

/// Entry kinds.
pub const PTX: u16 = 1;
/// Machine code for one architecture.
pub const ELF: u16 = 2;
/// Flags that mark a compressed payload (nvcc's two schemes).
const COMPRESSED: u64 = 0x2000 | 0x8000;

/// Why no kernel image could be taken from a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a container.
    Malformed(&'static str),
    /// No PTX the device can run: what was found instead (kind, arch, compressed).
    NoPtx(Vec<(u16, u32, bool)>),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Malformed(why) => write!(f, "the fat binary is malformed: {why}"),
            Refused::NoPtx(found) if found.is_empty() => write!(f, "the fat binary holds no entries"),
            Refused::NoPtx(found) => {
                write!(f, "the fat binary holds no PTX rgdev can run; it holds")?;
                for (i, (kind, arch, compressed)) in found.iter().enumerate() {
                    let what = match *kind {
                        PTX => "PTX",
                        ELF => "SASS (ELF)",
                        _ => "an entry of unknown kind",
                    };
                    let sep = if i == 0 { " " } else { ", " };
                    let z = if *compressed { " (compressed: not yet supported)" } else { "" };
                    write!(f, "{sep}{what} for sm_{arch}{z}")?;
                }
                write!(
                    f,
                    "; rebuild with PTX for compute_XX (nvcc -gencode arch=compute_70,code=compute_70, or rgdev cc)"
                )
            }
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Every entry of the container `b` (header included).
pub fn entries(b: &[u8]) -> Result<Vec<Entry<'_>>, Refused> {
    let bad = Refused::Malformed;
    if u32_at(b, 0) != Some(0xBA55ED50) {
        return Err(bad("wrong magic"));
    }
    let header = u16_at(b, 6).ok_or(bad("short header"))? as usize;
    let size = u64_at(b, 8).ok_or(bad("short header"))? as usize;
    let end = header.checked_add(size).filter(|&e| e <= b.len()).ok_or(bad("entries past the end"))?;
    let mut at = header;
    let mut out = Vec::new();
    while at + 64 <= end {
        let kind = u16_at(b, at).ok_or(bad("short entry"))?;
        let hsize = u32_at(b, at + 4).ok_or(bad("short entry"))? as usize;
        let psize = u64_at(b, at + 8).ok_or(bad("short entry"))? as usize;
        let arch = u32_at(b, at + 28).ok_or(bad("short entry"))?;
        let flags = u64_at(b, at + 40).ok_or(bad("short entry"))?;
        if hsize < 64 {
            return Err(bad("an entry header shorter than 64 bytes"));
        }
        let start = at.checked_add(hsize).ok_or(bad("entry past the end"))?;
        let stop = start.checked_add(psize).filter(|&s| s <= end).ok_or(bad("entry past the end"))?;
        out.push(Entry { kind, arch, flags, payload: &b[start..stop] });
        at = stop;
    }
    Ok(out)
}

/// The PTX text to load for a device of architecture `arch` (10 x major + minor): the
/// uncompressed PTX entry of the highest architecture not above it.
pub fn choose(b: &[u8], arch: u32) -> Result<Vec<u8>, Refused> {
    let all = entries(b)?;
    let best =
        all.iter().filter(|e| e.kind == PTX && e.flags & COMPRESSED == 0 && e.arch <= arch).max_by_key(|e| e.arch);
    match best {
        Some(e) => {
            // The payload is NUL-padded text; the driver wants one NUL at the end.
            let len = e.payload.iter().position(|&c| c == 0).unwrap_or(e.payload.len());
            let mut ptx = e.payload[..len].to_vec();
            ptx.push(0);
            Ok(ptx)
        }
        None => Err(Refused::NoPtx(all.iter().map(|e| (e.kind, e.arch, e.flags & COMPRESSED != 0)).collect())),
    }
}

/// Every PTX text to load for a device of architecture `arch`: the uncompressed PTX
/// entries of the highest architecture not above it, in container order. More than one
/// is relocatable device code (`-rdc`): the modules are linked at load.
pub fn choose_all(b: &[u8], arch: u32) -> Result<Vec<Vec<u8>>, Refused> {
    let all = entries(b)?;
    let usable = |e: &&Entry| e.kind == PTX && e.flags & COMPRESSED == 0 && e.arch <= arch;
    let Some(best) = all.iter().filter(usable).map(|e| e.arch).max() else {
        return Err(Refused::NoPtx(all.iter().map(|e| (e.kind, e.arch, e.flags & COMPRESSED != 0)).collect()));
    };
    Ok(all
        .iter()
        .filter(usable)
        .filter(|e| e.arch == best)
        .map(|e| {
            let len = e.payload.iter().position(|&c| c == 0).unwrap_or(e.payload.len());
            let mut ptx = e.payload[..len].to_vec();
            ptx.push(0);
            ptx
        })
        .collect())
}

/// A container of `entries` (kind, arch, payload), laid out as compilers lay it out; for
/// tests and for `rgdev cc`.
pub fn build(entries: &[(u16, u32, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xBA55ED50u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    for &(kind, arch, payload) in entries {
        let padded = payload.len().div_ceil(8) * 8;
        let mut h = [0u8; 64];
        h[0..2].copy_from_slice(&kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        h[4..8].copy_from_slice(&64u32.to_le_bytes());
        h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        h[28..32].copy_from_slice(&arch.to_le_bytes());
        h[40..48].copy_from_slice(&1u64.to_le_bytes()); // 64-bit code
        out.extend_from_slice(&h);
        out.extend_from_slice(payload);
        out.resize(out.len() + padded - payload.len(), 0);
    }
    let size = (out.len() - 16) as u64;
    out[8..16].copy_from_slice(&size.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::{string::ToString, vec};

    #[test]
    fn the_highest_ptx_the_device_runs_is_chosen() {
        let b = build(&[(PTX, 50, b"ptx50"), (ELF, 70, b"\x7fELF"), (PTX, 70, b"ptx70"), (PTX, 80, b"ptx80")]);
        assert_eq!(entries(&b).unwrap().len(), 4);
        assert_eq!(choose(&b, 70).unwrap(), b"ptx70\0");
        assert_eq!(choose(&b, 75).unwrap(), b"ptx70\0");
        assert_eq!(choose(&b, 60).unwrap(), b"ptx50\0");
        assert_eq!(choose(&b, 90).unwrap(), b"ptx80\0");
        // Relocatable device code: every entry of the chosen architecture.
        let b = build(&[(PTX, 70, b"a"), (PTX, 50, b"old"), (PTX, 70, b"b")]);
        assert_eq!(choose_all(&b, 75).unwrap(), vec![b"a\0".to_vec(), b"b\0".to_vec()]);
        assert_eq!(choose_all(&b, 60).unwrap(), vec![b"old\0".to_vec()]);
    }

    #[test]
    fn sass_only_and_malformed_containers_are_refused_with_what_was_found() {
        let b = build(&[(ELF, 70, b"\x7fELF"), (ELF, 80, b"\x7fELF")]);
        let e = choose(&b, 70).unwrap_err();
        assert_eq!(e, Refused::NoPtx(vec![(ELF, 70, false), (ELF, 80, false)]));
        let text = e.to_string();
        assert!(text.contains("SASS (ELF) for sm_70, SASS (ELF) for sm_80"), "{text}");
        // PTX only for a newer architecture than the device's.
        let b = build(&[(PTX, 80, b"ptx80")]);
        assert!(matches!(choose(&b, 70), Err(Refused::NoPtx(_))));
        // Truncated, or entries running past the end.
        let mut b = build(&[(PTX, 70, b"ptx70")]);
        b.truncate(b.len() - 4);
        assert!(matches!(choose(&b, 70), Err(Refused::Malformed(_))));
        assert!(matches!(entries(&[0u8; 8]), Err(Refused::Malformed(_))));
    }
}
