//! The fat binary container that nvcc and clang embed in a program: a 16-byte header
//! (magic 0xBA55ED50, version 1, header size, bytes of entries) and entries one after
//! another, each a header (kind: 1 PTX, 2 ELF; its own size; the payload's size; flags;
//! the architecture as 10 x major + minor; the payload's compressed size at 16 and its
//! uncompressed size at 56) and its payload. nvcc compresses payloads: flag 0x2000 is an
//! LZ4 block, 0x8000 a Zstandard frame; both are decompressed here. rgdev runs PTX: the
//! entry for the highest architecture the device can run is chosen, as the CUDA runtime
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
    /// The payload as stored (padded to 8 bytes).
    pub payload: &'a [u8],
    /// Bytes of the payload that are data (the compressed size; the whole payload when
    /// the header says 0).
    pub data: u32,
    /// The uncompressed size (compressed entries).
    pub uncompressed: u64,
}

/// Entry kinds.
pub const PTX: u16 = 1;
/// Machine code for one architecture.
pub const ELF: u16 = 2;
/// Flag: the payload is an LZ4 block.
pub const LZ4: u64 = 0x2000;
/// Flag: the payload is a Zstandard frame.
pub const ZSTD: u64 = 0x8000;
/// Most bytes an entry may decompress to (a PTX text beyond reason: 1 GiB).
const MAX_UNCOMPRESSED: u64 = 1 << 30;

/// Why no kernel image could be taken from a container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a container.
    Malformed(&'static str),
    /// No PTX the device can run: what was found instead (kind, arch, compressed).
    NoPtx(Vec<(u16, u32, bool)>),
    /// A compressed entry that does not decompress to its stated size.
    Corrupt(&'static str),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Malformed(why) => write!(f, "the fat binary is malformed: {why}"),
            Refused::Corrupt(why) => write!(f, "a compressed entry of the fat binary is corrupt: {why}"),
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
                    let z = if *compressed { " (compressed)" } else { "" };
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
        let data = u32_at(b, at + 16).ok_or(bad("short entry"))?;
        let uncompressed = u64_at(b, at + 56).ok_or(bad("short entry"))?;
        if hsize < 64 {
            return Err(bad("an entry header shorter than 64 bytes"));
        }
        let start = at.checked_add(hsize).ok_or(bad("entry past the end"))?;
        let stop = start.checked_add(psize).filter(|&s| s <= end).ok_or(bad("entry past the end"))?;
        out.push(Entry { kind, arch, flags, payload: &b[start..stop], data, uncompressed });
        at = stop;
    }
    Ok(out)
}

/// An LZ4 block (the format of LZ4's block API: sequences of a token, literals, a
/// 2-byte little-endian offset and a match of at least 4 bytes, the last sequence
/// literals only) decompressed to exactly `size` bytes.
pub fn lz4_block(src: &[u8], size: usize) -> Result<Vec<u8>, Refused> {
    let bad = Refused::Corrupt;
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let mut i = 0usize;
    // A length nibble of 15 goes on in bytes of 255 and one below.
    let more = |i: &mut usize, mut n: usize| -> Result<usize, Refused> {
        loop {
            let b = *src.get(*i).ok_or(bad("a length past the end"))?;
            *i += 1;
            n = n.checked_add(b as usize).ok_or(bad("a length beyond reason"))?;
            if b != 255 {
                return Ok(n);
            }
        }
    };
    while i < src.len() {
        let token = src[i];
        i += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            lit = more(&mut i, lit)?;
        }
        let end = i.checked_add(lit).filter(|&e| e <= src.len()).ok_or(bad("literals past the end"))?;
        if out.len() + lit > size {
            return Err(bad("more bytes than the entry states"));
        }
        out.extend_from_slice(&src[i..end]);
        i = end;
        if i == src.len() {
            break; // the last sequence: literals only
        }
        let off = u16::from_le_bytes([src[i], *src.get(i + 1).ok_or(bad("an offset past the end"))?]) as usize;
        i += 2;
        let mut len = (token & 15) as usize;
        if len == 15 {
            len = more(&mut i, len)?;
        }
        len += 4;
        if off == 0 || off > out.len() {
            return Err(bad("a match before the start"));
        }
        if out.len() + len > size {
            return Err(bad("more bytes than the entry states"));
        }
        let from = out.len() - off;
        for k in 0..len {
            let c = out[from + k]; // may overlap what this match writes
            out.push(c);
        }
    }
    if out.len() != size {
        return Err(bad("fewer bytes than the entry states"));
    }
    Ok(out)
}

/// The payload of entry `e`, decompressed.
pub fn payload(e: &Entry) -> Result<Vec<u8>, Refused> {
    let data = if e.data == 0 || e.data as usize > e.payload.len() { e.payload } else { &e.payload[..e.data as usize] };
    if e.flags & (LZ4 | ZSTD) == 0 {
        return Ok(e.payload.to_vec());
    }
    if e.uncompressed > MAX_UNCOMPRESSED {
        return Err(Refused::Corrupt("an uncompressed size beyond reason"));
    }
    if e.flags & ZSTD != 0 {
        let mut out = Vec::with_capacity(e.uncompressed as usize);
        let mut dec = ruzstd::decoding::FrameDecoder::new();
        dec.decode_all_to_vec(data, &mut out).map_err(|_| Refused::Corrupt("not a Zstandard frame"))?;
        if out.len() as u64 != e.uncompressed {
            return Err(Refused::Corrupt("fewer bytes than the entry states"));
        }
        return Ok(out);
    }
    lz4_block(data, e.uncompressed as usize)
}

/// The PTX text to load for a device of architecture `arch` (10 x major + minor): the
/// PTX entry of the highest architecture not above it, decompressed.
pub fn choose(b: &[u8], arch: u32) -> Result<Vec<u8>, Refused> {
    let mut all = choose_all(b, arch)?;
    Ok(all.swap_remove(0))
}

/// Every PTX text to load for a device of architecture `arch`: the PTX entries of the
/// highest architecture not above it, decompressed, in container order. More than one is
/// relocatable device code (`-rdc`): the modules are linked at load.
pub fn choose_all(b: &[u8], arch: u32) -> Result<Vec<Vec<u8>>, Refused> {
    let all = entries(b)?;
    let usable = |e: &&Entry| e.kind == PTX && e.arch <= arch;
    let Some(best) = all.iter().filter(usable).map(|e| e.arch).max() else {
        return Err(Refused::NoPtx(all.iter().map(|e| (e.kind, e.arch, e.flags & (LZ4 | ZSTD) != 0)).collect()));
    };
    let mut out = Vec::new();
    for e in all.iter().filter(usable).filter(|e| e.arch == best) {
        let text = payload(e)?;
        // The text is NUL-padded; the driver wants one NUL at the end.
        let len = text.iter().position(|&c| c == 0).unwrap_or(text.len());
        let mut ptx = text[..len].to_vec();
        ptx.push(0);
        out.push(ptx);
    }
    Ok(out)
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
        h[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
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

    /// A PTX text and that text as LZ4's block format and as a Zstandard frame (made
    /// with the Python lz4 and zstandard packages; compressed data, not code).
    const TEXT: &[u8] = b".version 6.4\n.target sm_70\n.address_size 64\n// the same line again and again\n// the same line again and again\n// the same line again and again\n// the same line again and again\n// the same line again and again\n// the same line again and again\nret;\n";
    const LZ: &[u8] = &[
        242, 55, 46, 118, 101, 114, 115, 105, 111, 110, 32, 54, 46, 52, 10, 46, 116, 97, 114, 103, 101, 116, 32, 115,
        109, 95, 55, 48, 10, 46, 97, 100, 100, 114, 101, 115, 115, 95, 115, 105, 122, 101, 32, 54, 52, 10, 47, 47, 32,
        116, 104, 101, 32, 115, 97, 109, 101, 32, 108, 105, 110, 101, 32, 97, 103, 97, 105, 110, 32, 97, 110, 100, 10,
        0, 15, 33, 0, 147, 80, 114, 101, 116, 59, 10,
    ];
    const ZS: &[u8] = &[
        40, 181, 47, 253, 32, 247, 69, 2, 0, 178, 4, 15, 17, 176, 59, 32, 208, 92, 15, 178, 55, 234, 97, 142, 54, 161,
        157, 233, 6, 116, 89, 94, 187, 195, 88, 153, 51, 98, 109, 230, 74, 123, 241, 107, 167, 167, 0, 164, 24, 218,
        209, 223, 252, 183, 59, 135, 55, 3, 49, 235, 245, 53, 114, 252, 54, 197, 14, 101, 205, 223, 53, 220, 2, 0, 35,
        162, 40, 24, 29, 138, 25,
    ];

    /// A container of one PTX entry for sm_70 holding `data` with `flags`.
    fn compressed(data: &[u8], flags: u64) -> Vec<u8> {
        let mut b = build(&[(PTX, 70, data)]);
        b[16 + 40..16 + 48].copy_from_slice(&(flags | 1).to_le_bytes());
        b[16 + 56..16 + 64].copy_from_slice(&(TEXT.len() as u64).to_le_bytes());
        b
    }

    #[test]
    fn compressed_entries_are_decompressed() {
        assert_eq!(lz4_block(LZ, TEXT.len()).unwrap(), TEXT);
        let mut want = TEXT.to_vec();
        want.push(0);
        assert_eq!(choose(&compressed(LZ, LZ4), 70).unwrap(), want);
        assert_eq!(choose(&compressed(ZS, ZSTD), 70).unwrap(), want);
        // Damage: a wrong size, a match before the start, garbage; never a panic.
        assert!(matches!(lz4_block(LZ, TEXT.len() + 1), Err(Refused::Corrupt(_))));
        assert!(matches!(lz4_block(&[0x0f, 0x09, 0x00], 100), Err(Refused::Corrupt(_))));
        assert!(matches!(choose(&compressed(&ZS[..40], ZSTD), 70), Err(Refused::Corrupt(_))));
        assert!(matches!(choose(&compressed(b"\xff\xff\xff", LZ4), 70), Err(Refused::Corrupt(_))));
        for n in 0..LZ.len() {
            let _ = lz4_block(&LZ[..n], TEXT.len());
        }
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
