//! The rgdev module container: a compiled [`Program`] as bytes, so modules can be
//! compiled ahead of time (`rgdev ptxas -o`) and loaded without the PTX.
//!
//! Layout: a 24-byte text header, magic `RGDEVMOD`, then the format version and the total
//! length as 8 lowercase hex digits each. A loader handed only a pointer, as
//! cuModuleLoadData is, reads the header one byte at a time: it holds no NUL, so a
//! NUL-terminated string that merely starts like a container stops matching at or before
//! its terminator, and nothing past the string is ever read. Then, little-endian,
//! sections, each a u32 count followed by its items (segments are a u32 size then the
//! initialized prefix): kernels (name, pc, regs, predicate regs, shared, local,
//! dynamic-shared flag, max threads (0 = none), spill store and load bytes, textures and
//! surfaces named, the cluster shape (x, y, z a byte each, bit 24 `.explicitcluster`; 0 =
//! none), parameter (offset, size) list), symbols (name, space (0 `.global`, 1 `.const`, 2 managed `.global`), offset, size),
//! the names of the texture, surface and sampler references (three string lists),
//! relocations (instruction, segment), the `.global` segment, the `.const` segment, the
//! code (16 bytes an instruction) and each instruction's PTX line (a u32 each, as many as
//! instructions). Strings are a u32 length and UTF-8.
//! Decoding checks every length against the input and fails cleanly on garbage.

use crate::ast::StateSpace;
use crate::program::{DataReloc, Kernel, Param, Program, Reloc, Segment, Symbol};
use alloc::string::String;
use alloc::vec::Vec;
use hw::isa::Instr;

/// The first bytes of a container.
pub const MAGIC: &[u8; 8] = b"RGDEVMOD";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 11;
/// Bytes of the fixed header: magic, version, total length.
pub const HEADER_LEN: usize = 24;

/// Whether `bytes` start like a container.
pub fn is_container(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

fn hex8(v: u32) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (k, b) in out.iter_mut().enumerate() {
        *b = b"0123456789abcdef"[(v >> (28 - 4 * k)) as usize & 0xF];
    }
    out
}

fn parse_hex8(b: &[u8]) -> Option<u32> {
    if b.len() != 8 {
        return None;
    }
    b.iter().try_fold(0u32, |v, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        Some(v << 4 | d as u32)
    })
}

/// Whether byte `i` of a header of this version may be `b` (none of them is NUL): the
/// magic, this version's digits, then hex digits. A loader with only a pointer reads
/// while this holds and treats the image as NUL-terminated text as soon as it does not.
pub fn header_byte_ok(i: usize, b: u8) -> bool {
    match i {
        0..8 => MAGIC[i] == b,
        8..16 => hex8(VERSION)[i - 8] == b,
        16..HEADER_LEN => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        _ => false,
    }
}

/// The total length a container header declares (`None` unless `header` is a container
/// header of this version). Read [`HEADER_LEN`] bytes, then the rest.
pub fn encoded_len(header: &[u8]) -> Option<usize> {
    if !is_container(header) || parse_hex8(header.get(8..16)?)? != VERSION {
        return None;
    }
    let n = parse_hex8(header.get(16..24)?)? as usize;
    (n >= HEADER_LEN).then_some(n)
}

struct W(Vec<u8>);
impl W {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
}

impl Program {
    /// Serialize.
    pub fn to_container(&self) -> Vec<u8> {
        let mut w = W(MAGIC.to_vec());
        w.0.extend_from_slice(&hex8(VERSION));
        w.0.extend_from_slice(&hex8(0)); // total length, patched below
        w.u32(self.kernels.len() as u32);
        for k in &self.kernels {
            w.bytes(k.name.as_bytes());
            for v in [
                k.pc,
                k.param_bytes,
                k.regs,
                k.pred_regs,
                k.shared_bytes,
                k.local_bytes,
                k.dynamic_shared as u32,
                k.max_threads.unwrap_or(0),
                k.spill.0,
                k.spill.1,
                k.textures,
                k.surfaces,
                k.cluster.map_or(0, |[x, y, z]| x | y << 8 | z << 16) | (k.explicit_cluster as u32) << 24,
            ] {
                w.u32(v);
            }
            w.u32(k.params.len() as u32);
            for p in &k.params {
                w.u32(p.offset);
                w.u32(p.size);
            }
        }
        w.u32(self.symbols.len() as u32);
        for s in &self.symbols {
            w.bytes(s.name.as_bytes());
            w.u32(match (s.space, s.managed) {
                (StateSpace::Global, false) => 0,
                (StateSpace::Global, true) => 2,
                _ => 1,
            });
            w.u32(s.offset);
            w.u32(s.size);
        }
        for names in [&self.textures, &self.surfaces, &self.samplers] {
            w.u32(names.len() as u32);
            for n in names {
                w.bytes(n.as_bytes());
            }
        }
        w.u32(self.relocs.len() as u32);
        for r in &self.relocs {
            w.u32(r.at);
            w.u32(match r.segment {
                Segment::Global => 0,
                Segment::Const => 1,
            });
        }
        w.u32(self.data_relocs.len() as u32);
        for r in &self.data_relocs {
            let seg = |s: Segment| match s {
                Segment::Global => 0,
                Segment::Const => 1,
            };
            w.u32(seg(r.slot) | seg(r.target) << 1 | u32::from(r.width) << 8);
            w.u32(r.at);
        }
        w.u32(self.global_size);
        w.bytes(&self.global_init);
        w.u32(self.const_size);
        w.bytes(&self.const_init);
        w.u32(self.code.len() as u32);
        for i in &self.code {
            w.0.extend_from_slice(&i.to_bytes());
        }
        for k in 0..self.code.len() {
            w.u32(self.lines.get(k).copied().unwrap_or(0));
        }
        // A container over 4 GiB records 0, which no decoder accepts.
        let total = u32::try_from(w.0.len()).unwrap_or(0);
        w.0[16..24].copy_from_slice(&hex8(total));
        w.0
    }

    /// Deserialize; `None` for anything that is not a well-formed container of this version.
    pub fn from_container(b: &[u8]) -> Option<Program> {
        let mut r = R { b, i: 0 };
        if encoded_len(r.take(HEADER_LEN)?)? != b.len() {
            return None;
        }
        let mut kernels = Vec::new();
        for _ in 0..r.count(60)? {
            let name = r.string()?;
            let mut v = [0u32; 13];
            for x in v.iter_mut() {
                *x = r.u32()?;
            }
            let mut params = Vec::new();
            for _ in 0..r.count(8)? {
                params.push(Param { offset: r.u32()?, size: r.u32()? });
            }
            let [
                pc,
                param_bytes,
                regs,
                pred_regs,
                shared_bytes,
                local_bytes,
                dynamic,
                max,
                spill_st,
                spill_ld,
                tex,
                surf,
                cluster,
            ] = v;
            kernels.push(Kernel {
                name,
                pc,
                params,
                param_bytes,
                regs,
                pred_regs,
                shared_bytes,
                local_bytes,
                dynamic_shared: dynamic != 0,
                max_threads: (max != 0).then_some(max),
                spill: (spill_st, spill_ld),
                textures: tex,
                surfaces: surf,
                cluster: (cluster & 0xFF_FFFF != 0).then_some([
                    cluster & 0xFF,
                    cluster >> 8 & 0xFF,
                    cluster >> 16 & 0xFF,
                ]),
                explicit_cluster: cluster >> 24 & 1 != 0,
            });
        }
        let mut symbols = Vec::new();
        for _ in 0..r.count(16)? {
            let name = r.string()?;
            let (space, managed) = match r.u32()? {
                0 => (StateSpace::Global, false),
                1 => (StateSpace::Const, false),
                2 => (StateSpace::Global, true),
                _ => return None,
            };
            symbols.push(Symbol { name, space, offset: r.u32()?, size: r.u32()?, managed });
        }
        let mut handles = [Vec::new(), Vec::new(), Vec::new()];
        for names in handles.iter_mut() {
            for _ in 0..r.count(4)? {
                names.push(r.string()?);
            }
        }
        let [textures, surfaces, samplers] = handles;
        let mut relocs = Vec::new();
        for _ in 0..r.count(8)? {
            let at = r.u32()?;
            let segment = match r.u32()? {
                0 => Segment::Global,
                1 => Segment::Const,
                _ => return None,
            };
            relocs.push(Reloc { at, segment });
        }
        let mut data_relocs = Vec::new();
        for _ in 0..r.count(8)? {
            let bits = r.u32()?;
            let at = r.u32()?;
            let seg = |b: u32| if b & 1 == 1 { Segment::Const } else { Segment::Global };
            let width = (bits >> 8) as u8;
            if bits & !0xF03 != 0 || !matches!(width, 4 | 8) {
                return None;
            }
            data_relocs.push(DataReloc { slot: seg(bits), at, width, target: seg(bits >> 1) });
        }
        let global_size = r.u32()?;
        let global_init = r.blob()?;
        let const_size = r.u32()?;
        let const_init = r.blob()?;
        if global_init.len() > global_size as usize || const_init.len() > const_size as usize {
            return None;
        }
        let mut code = Vec::new();
        for _ in 0..r.count(16)? {
            let b: &[u8; 16] = r.take(16)?.try_into().ok()?;
            code.push(Instr::from_bytes(b));
        }
        let mut lines = Vec::with_capacity(code.len());
        for _ in 0..code.len() {
            lines.push(r.u32()?);
        }
        let bad_kernel = |k: &Kernel| {
            k.pc as usize >= code.len()
                || k.regs > hw::isa::MAX_GPRS
                || k.pred_regs > hw::isa::PREDS as u32
                || k.param_bytes > 4096
                || k.params.iter().any(|p| p.offset.checked_add(p.size).is_none_or(|end| end > k.param_bytes))
        };
        let bad_symbol = |s: &Symbol| {
            let size = if s.space == StateSpace::Global { global_size } else { const_size };
            s.offset.checked_add(s.size).is_none_or(|end| end > size)
        };
        if r.i != b.len()
            || kernels.iter().any(bad_kernel)
            || symbols.iter().any(bad_symbol)
            || relocs.iter().any(|x| x.at as usize >= code.len())
        {
            return None;
        }
        Some(Program {
            code,
            kernels,
            symbols,
            global_size,
            global_init,
            const_size,
            const_init,
            relocs,
            data_relocs,
            lines,
            textures,
            surfaces,
            samplers,
        })
    }
}

struct R<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> R<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.i..self.i.checked_add(n)?)?;
        self.i += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// An item count, checked against the bytes left (each item is at least `min` bytes).
    fn count(&mut self, min: usize) -> Option<u32> {
        let n = self.u32()?;
        ((n as usize).checked_mul(min)? <= self.b.len() - self.i).then_some(n)
    }
    fn blob(&mut self) -> Option<Vec<u8>> {
        let n = self.count(1)? as usize;
        Some(self.take(n)?.to_vec())
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.blob()?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_garbage() {
        let p = crate::compile_ptx(include_str!("../../kernels/constdyn.ptx")).unwrap();
        let bytes = p.to_container();
        assert!(is_container(&bytes));
        assert_eq!(Program::from_container(&bytes).as_ref(), Some(&p));
        for cut in [0, 7, 8, 12, 16, 23, 24, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(Program::from_container(&bytes[..cut]), None, "truncated at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(Program::from_container(&extra), None);
        let mut bad = bytes.clone();
        bad[HEADER_LEN] = 0xFF; // kernel count far beyond the input
        assert_eq!(Program::from_container(&bad), None);
        // The header gives the size to a loader that only has a pointer.
        assert_eq!(encoded_len(&bytes[..HEADER_LEN]), Some(bytes.len()));
        assert_eq!(encoded_len(&bytes[..8]), None);
        let mut old = bytes.clone();
        old[15] = b'5';
        assert_eq!(encoded_len(&old), None);
        assert_eq!(Program::from_container(&old), None);
        // No header byte is NUL, and each is checked as it comes.
        assert!(bytes[..HEADER_LEN].iter().enumerate().all(|(i, &b)| b != 0 && header_byte_ok(i, b)));
        assert!(!header_byte_ok(8, 0) && !header_byte_ok(16, b'g') && !header_byte_ok(HEADER_LEN, b'0'));
        // Metadata that would index past the parameter buffer or a segment is rejected.
        let mut q = p.clone();
        q.kernels[0].params[0].offset = 4090;
        assert_eq!(Program::from_container(&q.to_container()), None);
        let mut q = p.clone();
        q.symbols[0].offset = u32::MAX;
        assert_eq!(Program::from_container(&q.to_container()), None);
        let mut q = p.clone();
        q.kernels[0].regs = 300;
        assert_eq!(Program::from_container(&q.to_container()), None);
    }

    /// Addresses in initializers: relocations of the segments' bytes, kept by the container
    /// and applied where the loader places the segments.
    #[test]
    fn address_initializers_are_relocated() {
        let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
                   .global .align 4 .b8 v[16] = {1, 2, 3, 4};\n\
                   .const .align 4 .b8 c[8] = {9};\n\
                   .global .align 8 .u64 p[3] = {generic(v)+8, generic(c)+4, 7};\n\
                   .const .align 8 .u64 q = v;\n\
                   .entry k() { ret; }\n";
        let p = crate::compile_ptx(src).unwrap();
        assert_eq!(p.data_relocs.len(), 3);
        let back = Program::from_container(&p.to_container()).unwrap();
        assert_eq!(back.data_relocs, p.data_relocs);
        let [g, c] = back.init_bytes_placed(0x1000_0000, 0x2000_0000, &[]);
        let word = |img: &[u8], at: usize| u64::from_le_bytes(img[at..at + 8].try_into().unwrap());
        assert_eq!(word(&g, 16), 0x1000_0008);
        assert_eq!(word(&g, 24), 0x2000_0004);
        assert_eq!(word(&g, 32), 7);
        assert_eq!(word(&c, 8), 0x1000_0000);
        // A shared variable has no address to initialize with.
        let bad =
            src.replace(".const .align 8 .u64 q = v;", ".shared .align 4 .b8 s[4];\n.global .u64 r = generic(s);");
        assert!(crate::compile_ptx(&bad).unwrap_err().msg.contains("address of `s` is not supported"));
    }
}
