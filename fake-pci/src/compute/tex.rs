//! The texture unit: TEX, TLD4, TXQ, SULD and SUST. A texture or surface operand is a
//! bindless handle (header index in bits 19:0, sampler index in bits 31:20) or a slot the
//! channel bound with BIND_TEXTURE_HEADER / BIND_TEXTURE_SAMPLER / BIND_SURFACE_HEADER;
//! either way its header (TIC) and sampler (TSC) entries are read through the MMU from the
//! pools of SET_TEX_HEADER_POOL / SET_TEX_SAMPLER_POOL (`hw::tex`). An index above the
//! pool's maximum or an entry without its valid bit stops the grid (OutOfRange).
//!
//! Sampling follows CUDA's documented texture fetching: normalized coordinates are scaled
//! by the size; wrap and mirror apply to normalized coordinates only (clamp otherwise);
//! point filtering reads texel floor(x); linear filtering reads floor(x - 0.5) and the
//! next texel with the fraction held in 1.8 fixed point (rounded to nearest), per axis;
//! border reads the sampler's border color. Unorm/snorm components read as floats in
//! [0, 1] / [-1, 1]; missing components read 0 (alpha 1). Texel fetches of linear memory
//! (integer coordinates on a buffer) read zero outside it. A cube map's direction picks a
//! face (its layer) and normalized coordinates on it ([`cube_face`]); faces clamp to their
//! edges. A mipmapped texture is sampled at the level of detail the instruction gives,
//! biased and clamped by the sampler, from the nearest level or two blended
//! (`hw::tex::TexHeader::level` lays the levels out). TXQ of a cube map is not modelled.
//!
//! Surfaces are addressed in bytes (x) and rows; an element outside the surface traps,
//! clamps or reads zero as the instruction says, and a misaligned x traps.
//!
//! For the timing model a texture fetch records every texel it read (`MemProbe::texels`)
//! and the filter cycles it needs (a lane's footprint of up to four texels is one); the
//! timing model sends them through the SM's texture cache (`timing::memsys`). Surface
//! accesses are timed like global accesses, one element per lane.

use super::{
    D, Exec, Fault, GridError, Op, RZ, Space, SurfClamp, SurfMods, TXQ_SURFACE, TexDim, TexMods, TexQuery, Trap,
    TrapReason, load_le, operand, store_le,
};
use hw::tex::{AddressMode, CompKind, CompSize, Filter, TexHeader, TexLayout, TexSampler, TexShape};
use modular_bitfield::Specifier;

/// A texture's header and sampler, resolved from an operand.
#[derive(Clone, Copy)]
struct Res {
    h: TexHeader,
    s: TexSampler,
}

impl Exec<'_, '_> {
    /// Execute a texture or surface instruction in lanes `on`. In a replayable context a
    /// texel on a page with no PTE parks the warp with the instruction as if not executed
    /// (see `Exec::replayable`): the lanes that wrote their results before it get their
    /// destination registers back, so the replay reads the same coordinates; a surface
    /// store replayed writes what it wrote.
    pub(crate) fn texture(&mut self, d: D, pc: u32, on: u32, regs: &mut [u64]) -> Result<(), GridError> {
        let writes = d.dst != RZ && !matches!(d.op, Op::Sust | Op::Txq);
        if !(self.cx.space.replayable && self.check.is_none() && writes) {
            return self.texture_lanes(d, pc, on, regs).map_err(|e| self.replayable(e));
        }
        let (lo, hi) = (d.dst as usize * 32, (d.dst as usize + 4).min(255) * 32);
        let mut saved = [0u64; 4 * 32];
        saved[..hi - lo].copy_from_slice(&regs[lo..hi]);
        let r = self.texture_lanes(d, pc, on, regs).map_err(|e| self.replayable(e));
        if matches!(r, Err(GridError::Replay(_))) {
            regs[lo..hi].copy_from_slice(&saved[..hi - lo]);
        }
        r
    }

    /// [`Exec::texture`]'s work, lane by lane.
    fn texture_lanes(&mut self, d: D, pc: u32, on: u32, regs: &mut [u64]) -> Result<(), GridError> {
        let trap = |reason| GridError::Trap(Trap { reason, pc });
        if let Some(p) = self.probe.as_deref_mut() {
            p.on = on;
            p.bytes = 4;
            p.texels.clear();
            p.samples = 0;
        }
        // The handle operand: b, except for SUST (c).
        let k = if d.op == Op::Sust { 2 } else { 1 };
        let surface = matches!(d.op, Op::Suld | Op::Sust) || (d.op == Op::Txq && d.m & TXQ_SURFACE != 0);
        let mut last: Option<(u64, Res)> = None;
        for l in (0..32usize).filter(|l| on >> l & 1 == 1) {
            let key = operand(&d, k, l, regs);
            let res = match last {
                Some((h, r)) if h == key => r,
                _ => {
                    let r = self.tex_resolve(&d, k, key, surface).ok_or(trap(TrapReason::OutOfRange))?;
                    last = Some((key, r));
                    r
                }
            };
            match d.op {
                Op::Txq => {
                    let v = txq(&res, d.m).ok_or(trap(TrapReason::IllegalInstruction))?;
                    if d.dst != RZ {
                        regs[d.dst as usize * 32 + l] = v as u64;
                    }
                }
                Op::Tex | Op::Tld4 => {
                    let m = TexMods::from_bytes(d.m.to_le_bytes());
                    let before = self.probe.as_deref().map_or(0, |p| p.texels.len());
                    let texel = self.sample(&res, &d, m, l, regs).map_err(|e| e.at(pc))?;
                    if let Some(p) = self.probe.as_deref_mut() {
                        p.samples += ((p.texels.len() - before).div_ceil(4) as u32).max(1);
                    }
                    for (c, v) in texel.iter().enumerate() {
                        let r = d.dst as usize + c;
                        if d.dst != RZ && r < 255 {
                            regs[r * 32 + l] = *v as u64;
                        }
                    }
                }
                _ => self.surface(&res, &d, l, regs).map_err(|e| e.at(pc))?,
            }
        }
        Ok(())
    }

    /// The header (and sampler) an operand names; `None` for an unbound slot, an index
    /// beyond its pool, or an entry that is not valid or does not decode.
    fn tex_resolve(&mut self, d: &D, k: usize, key: u64, surface: bool) -> Option<Res> {
        let r = self.r;
        let (header, sampler) = if d.is_imm(k) {
            let slot = (key & 0xFFFF_FFFF) as usize;
            let bound = |v: &[u32], i: usize| v.get(i).copied().filter(|&x| x != 0).map(|x| x - 1);
            let h = if surface { bound(&r.surf_slots, slot)? } else { bound(&r.tex_slots, slot)? };
            let smp = match key >> 32 {
                0 => slot,
                s => s as usize - 1,
            };
            (h, if surface { None } else { Some(bound(&r.sampler_slots, smp)?) })
        } else {
            let (h, s) = hw::tex::handle_parts(key);
            (h, (!surface).then_some(s))
        };
        let h = TexHeader::from_bytes(self.entry(r.header_pool, header)?);
        let ok = h.valid()
            && h.texel_bytes().is_some()
            && h.kind_or_err().is_ok()
            && h.shape_or_err().is_ok()
            && h.layout_or_err().is_ok();
        if !ok {
            return None;
        }
        let s = match sampler {
            None => TexSampler::new(),
            Some(i) => {
                let s = TexSampler::from_bytes(self.entry(r.sampler_pool, i)?);
                let modes = [s.address_u_or_err(), s.address_v_or_err(), s.address_p_or_err()];
                if !s.valid() || modes.iter().any(|m| m.is_err()) {
                    return None;
                }
                s
            }
        };
        Some(Res { h, s })
    }

    /// Entry `index` of a pool at (address, maximum index).
    fn entry(&mut self, (pool, max): (u64, u32), index: u32) -> Option<[u8; 32]> {
        if pool == 0 || index > max {
            return None;
        }
        let mut e = [0u8; 32];
        let va = pool.checked_add(index as u64 * hw::tex::ENTRY_BYTES)?;
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, &mut e).ok()?;
        Some(e)
    }

    /// The address of texel (x, y, z) — z a 3D slice or an array layer — which the caller
    /// has placed inside the texture.
    fn texel_va(h: &TexHeader, x: u64, y: u64, z: u64) -> u64 {
        let tb = h.texel_bytes().unwrap_or(1) as u64;
        let base = h.address();
        match (h.shape_or_err(), h.layout_or_err()) {
            (Ok(TexShape::Buffer), _) => base + x * tb,
            (_, Ok(TexLayout::Pitch)) => base + (z * h.height() as u64 + y) * h.pitch() as u64 + x * tb,
            _ => {
                let bl = h.block_linear().expect("a block-linear header");
                if h.shape_or_err() == Ok(TexShape::D3) {
                    base + bl.offset(x * tb, y, z)
                } else {
                    base + z * bl.size() + bl.offset(x * tb, y, 0)
                }
            }
        }
    }

    /// Read texel (x, y, z) as four 32-bit values (floats as bits for float and normalized
    /// kinds), recording its address for the timing model.
    fn texel(&mut self, h: &TexHeader, (x, y, z): (u64, u64, u64)) -> Result<[u32; 4], Stop> {
        let va = Self::texel_va(h, x, y, z);
        let tb = h.texel_bytes().unwrap_or(1) as usize;
        if let Some(p) = self.probe.as_deref_mut() {
            p.texels.push(va);
            p.bytes = tb as u32;
        }
        let mut b = [0u8; 16];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, &mut b[..tb]).map_err(Stop::Fault)?;
        Ok(decode_texel(h, &b))
    }

    /// TEX or TLD4 in lane `l`. A mipmapped texture is sampled at the level of detail the
    /// instruction gives (`tex.level`; 0 otherwise) plus the sampler's bias, clamped to
    /// the sampler's range and the levels: the nearest level (point mip filter), or the
    /// two around it weighted by the fraction in 1.8 fixed point (linear). A gather reads
    /// level 0.
    fn sample(&mut self, res: &Res, d: &D, m: TexMods, l: usize, regs: &[u64]) -> Result<[u32; 4], Stop> {
        let Res { h, s } = *res;
        let base = [h.width().max(1) as i64, h.height().max(1) as i64, h.depth().max(1) as i64];
        let levels = h.levels_minus_one() as u32;
        if levels == 0 || d.op != Op::Tex {
            return self.sample_level(h, s, base, d, m, l, regs);
        }
        let given = if m.lod() { lod(d, l, regs) } else { 0.0 };
        let (lo, hi) = s.lod_range();
        // A NaN level of detail reads the least level (max and min drop it).
        let lambda = (given + s.bias()).max(lo).min(hi.max(lo)).max(0.0).min(levels as f32);
        let level = |this: &mut Self, k: u32| {
            let hk = h.level(k).ok_or(Stop::Illegal)?;
            this.sample_level(hk, s, base, d, m, l, regs)
        };
        if s.mip_filter() == Filter::Point {
            return level(self, (libm::floorf(lambda + 0.5) as u32).min(levels));
        }
        let k = libm::floorf(lambda) as u32;
        let w = libm::roundf((lambda - k as f32) * 256.0) / 256.0;
        let near = level(self, k)?;
        if w == 0.0 || k >= levels {
            return Ok(near);
        }
        if !matches!(h.kind(), CompKind::Unorm | CompKind::Snorm | CompKind::Float) {
            return Err(Stop::Illegal); // blending levels needs float results
        }
        let far = level(self, k + 1)?;
        Ok(core::array::from_fn(|i| ((1.0 - w) * f32::from_bits(near[i]) + w * f32::from_bits(far[i])).to_bits()))
    }

    /// Sample one level `h` (of a texture whose level 0 is `base` texels: coordinates in
    /// texel units address level 0's texels).
    #[allow(clippy::too_many_arguments)]
    fn sample_level(
        &mut self,
        h: TexHeader,
        s: TexSampler,
        base: [i64; 3],
        d: &D,
        m: TexMods,
        l: usize,
        regs: &[u64],
    ) -> Result<[u32; 4], Stop> {
        let dim = m.dim_or_err().map_err(|_| Stop::Illegal)?;
        let shape = h.shape_or_err().map_err(|_| Stop::Illegal)?;
        let is_cube = dim == TexDim::Cube;
        if is_cube != (shape == TexShape::Cube) || (is_cube && m.int_coords()) {
            return Err(Stop::Illegal);
        }
        let coord = |i: usize| -> u64 {
            let r = d.a as usize + i;
            if d.a == RZ || r >= 255 { 0 } else { regs[r * 32 + l] }
        };
        // A cube map: the face the direction (x, y, z) points at and the normalized
        // coordinates on it.
        let cube = is_cube.then(|| cube_face([f(coord(0)), f(coord(1)), f(coord(2))]));
        // Layer first for arrays, then x, y, z; a cube map's face is its layer.
        let (layered, n) = match dim {
            TexDim::D1 => (false, 1),
            TexDim::D2 => (false, 2),
            TexDim::D3 => (false, 3),
            TexDim::A1 => (true, 1),
            TexDim::A2 | TexDim::Cube => (true, 2),
        };
        let layer = if let Some((face, _)) = cube {
            face
        } else if layered {
            let depth = h.depth().max(1) as i64;
            (coord(0) as u32 as i32 as i64).clamp(0, depth - 1) as u64
        } else {
            0
        };
        let first = layered as usize;
        let size = [h.width().max(1) as i64, h.height().max(1) as i64, h.depth().max(1) as i64];
        let modes = [s.address_u(), s.address_v(), s.address_p()];
        let float_kind = matches!(h.kind(), CompKind::Unorm | CompKind::Snorm | CompKind::Float);
        // Linear memory by texel index: no filtering or addressing, zero outside.
        if shape == TexShape::Buffer {
            let x =
                if m.int_coords() { coord(first) as u32 as i32 as i64 } else { libm::floorf(f(coord(first))) as i64 };
            if x < 0 || x >= size[0] {
                return Ok([0; 4]);
            }
            return self.texel(&h, (x as u64, 0, 0));
        }
        // Per axis: the texel indices and the weight of the second (linear filtering).
        let mut idx = [[0i64; 2]; 3];
        let mut alpha = [0f32; 3];
        let linear = s.filter() == Filter::Linear && !m.int_coords() && d.op == Op::Tex;
        let gather = d.op == Op::Tld4;
        for a in 0..n {
            let c = coord(first + a);
            if m.int_coords() {
                idx[a] = [c as u32 as i32 as i64; 2];
                continue;
            }
            let mut u = f(c);
            if let Some((_, uv)) = cube {
                u = uv[a] * size[a] as f32;
            } else if s.normalized() {
                u *= size[a] as f32;
            } else if size[a] != base[a] {
                u *= size[a] as f32 / base[a] as f32;
            }
            if linear || gather {
                let ub = u - 0.5;
                let i0 = libm::floorf(ub);
                alpha[a] = libm::roundf((ub - i0) * 256.0) / 256.0;
                idx[a] = [i0 as i64, i0 as i64 + 1];
            } else {
                idx[a] = [libm::floorf(u) as i64; 2];
            }
        }
        // One texel after addressing: None reads the border color.
        let address = |a: usize, i: i64| -> Option<i64> {
            let nsz = size[a];
            let mode = match modes[a] {
                // A cube map's faces clamp to their edges (no seamless filtering).
                _ if is_cube => AddressMode::ClampToEdge,
                AddressMode::Wrap | AddressMode::Mirror if !s.normalized() || m.int_coords() => {
                    AddressMode::ClampToEdge
                }
                x => x,
            };
            match mode {
                AddressMode::Wrap => Some(i.rem_euclid(nsz)),
                AddressMode::Mirror => {
                    let r = i.rem_euclid(2 * nsz);
                    Some(if r < nsz { r } else { 2 * nsz - 1 - r })
                }
                AddressMode::ClampToEdge => Some(i.clamp(0, nsz - 1)),
                AddressMode::Border => (0..nsz).contains(&i).then_some(i),
            }
        };
        let border = s.border();
        let read = |this: &mut Self, corner: [usize; 3]| -> Result<[u32; 4], Stop> {
            let mut at = [0u64; 3];
            for a in 0..n {
                match address(a, idx[a][corner[a]]) {
                    Some(i) => at[a] = i as u64,
                    None => return Ok(border),
                }
            }
            let z = if layered { layer } else { at[2] };
            this.texel(&h, (at[0], at[1], z))
        };
        if gather {
            // TLD4: component `comp` of the 2x2 footprint, in the order (i0, j1), (i1, j1),
            // (i1, j0), (i0, j0).
            let comp = m.comp() as usize;
            let mut out = [0u32; 4];
            for (k, corner) in [[0, 1, 0], [1, 1, 0], [1, 0, 0], [0, 0, 0]].into_iter().enumerate() {
                out[k] = read(self, corner)?[comp];
            }
            return Ok(out);
        }
        if !linear {
            return read(self, [0, 0, 0]);
        }
        if !float_kind {
            return Err(Stop::Illegal); // linear filtering needs float results
        }
        let mut acc = [0f32; 4];
        for corner in 0..(1usize << n) {
            let c = [corner & 1, corner >> 1 & 1, corner >> 2 & 1];
            let mut w = 1f32;
            for a in 0..n {
                w *= if c[a] == 1 { alpha[a] } else { 1.0 - alpha[a] };
            }
            if w == 0.0 {
                continue;
            }
            let t = read(self, c)?;
            for (acc, v) in acc.iter_mut().zip(t) {
                *acc += w * f32::from_bits(v);
            }
        }
        Ok(acc.map(f32::to_bits))
    }

    /// SULD or SUST in lane `l`.
    fn surface(&mut self, res: &Res, d: &D, l: usize, regs: &mut [u64]) -> Result<(), Stop> {
        let h = res.h;
        let sm = SurfMods::from_bytes(d.m.to_le_bytes());
        let dim = sm.dim_or_err().map_err(|_| Stop::Illegal)?;
        let clamp = sm.clamp_or_err().map_err(|_| Stop::Illegal)?;
        let n = 1usize << sm.vec();
        let size = d.ty.bytes() as u64;
        let bytes = size * n as u64;
        let coord = |i: usize| -> i64 {
            let r = d.a as usize + i;
            if d.a == RZ || r >= 255 { 0 } else { regs[r * 32 + l] as u32 as i32 as i64 }
        };
        let (layered, axes) = match dim {
            TexDim::D1 => (false, 1),
            TexDim::D2 => (false, 2),
            TexDim::D3 => (false, 3),
            TexDim::A1 => (true, 1),
            TexDim::A2 => (true, 2),
            TexDim::Cube => return Err(Stop::Illegal),
        };
        let tb = h.texel_bytes().unwrap_or(1) as i64;
        let limits = [h.width() as i64 * tb, h.height().max(1) as i64, h.depth().max(1) as i64];
        let mut at = [0i64; 3];
        for (a, v) in at.iter_mut().enumerate().take(axes) {
            *v = coord(layered as usize + a);
        }
        if layered {
            at[2] = coord(0);
        }
        if at[0] % bytes as i64 != 0 {
            return Err(Stop::Trap(TrapReason::Misaligned));
        }
        let inside = |a: usize, v: i64| {
            let room = if a == 0 { limits[0] - bytes as i64 } else { limits[a] - 1 };
            (0..=room).contains(&v)
        };
        let mut zero = false;
        for a in 0..3 {
            if !inside(a, at[a]) {
                match clamp {
                    SurfClamp::Trap => return Err(Stop::Trap(TrapReason::OutOfRange)),
                    SurfClamp::Zero => zero = true,
                    SurfClamp::Clamp => {
                        let room = if a == 0 {
                            (limits[0] - bytes as i64) / bytes as i64 * bytes as i64
                        } else {
                            limits[a] - 1
                        };
                        at[a] = at[a].clamp(0, room.max(0));
                    }
                }
            }
        }
        let store = d.op == Op::Sust;
        if zero {
            if !store {
                for k in 0..n {
                    let r = d.dst as usize + k;
                    if d.dst != RZ && r < 255 {
                        regs[r * 32 + l] = 0;
                    }
                }
            }
            return Ok(());
        }
        // Byte x of the row: the texel holding it, then the byte within.
        let (x, within) = (at[0] / tb, at[0] % tb);
        let va = Self::texel_va(&h, x as u64, at[1] as u64, at[2] as u64) + within as u64;
        if let Some(p) = self.probe.as_deref_mut() {
            p.addr[l] = va;
            p.space[l] = Space::Global;
            p.bytes = bytes as u32;
        }
        let mut b = [0u8; 32];
        let buf = &mut b[..bytes as usize];
        if store {
            for k in 0..n {
                let r = d.b as usize + k;
                let v = if d.b == RZ || r >= 255 { 0 } else { regs[r * 32 + l] };
                store_le(&mut buf[k * size as usize..], size as usize, v);
            }
            self.cx.tlb.write_va(self.cx.mem, &self.cx.space, va, buf).map_err(Stop::Fault)
        } else {
            self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, buf).map_err(Stop::Fault)?;
            for k in 0..n {
                let r = d.dst as usize + k;
                if d.dst != RZ && r < 255 {
                    regs[r * 32 + l] = load_le(&buf[k * size as usize..], size as usize);
                }
            }
            Ok(())
        }
    }
}

/// Why a texture instruction stopped the grid (the instruction index is added by the
/// caller).
enum Stop {
    Illegal,
    Trap(TrapReason),
    Fault(Fault),
}

impl Stop {
    fn at(self, pc: u32) -> GridError {
        match self {
            Stop::Illegal => GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc }),
            Stop::Trap(reason) => GridError::Trap(Trap { reason, pc }),
            Stop::Fault(f) => GridError::Fault(f),
        }
    }
}

fn f(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// The level of detail a `tex.level` operand (c) asks for in lane `l`.
fn lod(d: &D, l: usize, regs: &[u64]) -> f32 {
    f(operand(d, 2, l, regs))
}

/// What a missing component reads: 0, and 1 (float or integer) for alpha.
fn default_texel(float_kind: bool) -> [u32; 4] {
    [0, 0, 0, if float_kind { 1f32.to_bits() } else { 1 }]
}

/// A half-precision float's value.
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0f32 } else { 1.0 };
    let exp = (h >> 10 & 0x1F) as i32;
    let man = (h & 0x3FF) as f32;
    match exp {
        0 => sign * man * libm::exp2f(-24.0),
        31 if man == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + man / 1024.0) * libm::exp2f((e - 15) as f32),
    }
}

/// The four 32-bit values of a texel's bytes.
fn decode_texel(h: &TexHeader, b: &[u8; 16]) -> [u32; 4] {
    let kind = h.kind();
    let size = h.size();
    let float_kind = matches!(kind, CompKind::Unorm | CompKind::Snorm | CompKind::Float);
    let mut out = default_texel(float_kind);
    let cb = size.bytes() as usize;
    let bits = cb as u32 * 8;
    for (c, o) in out.iter_mut().enumerate().take(h.comps() as usize) {
        let raw = load_le(&b[c * cb..], cb);
        let sext = ((raw << (64 - bits)) as i64) >> (64 - bits);
        *o = match kind {
            CompKind::Uint => raw as u32,
            CompKind::Sint => sext as i32 as u32,
            CompKind::Unorm => ((raw as f64 / ((1u64 << bits) - 1) as f64) as f32).to_bits(),
            CompKind::Snorm => (((sext as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0)) as f32).to_bits(),
            CompKind::Float if size == CompSize::B16 => half_to_f32(raw as u16).to_bits(),
            CompKind::Float => raw as u32,
        };
    }
    out
}

/// TXQ attribute `m` of a texture or surface.
fn txq(res: &Res, m: u16) -> Option<u32> {
    let Res { h, s } = res;
    let q = TexQuery::from_bytes((m & 0xF) as u8).ok()?;
    let shape = h.shape_or_err().ok()?;
    let layered = matches!(shape, TexShape::A1 | TexShape::A2);
    // OpenCL's channel data type and order codes, which PTX's txq reports.
    let data_type = match (h.kind(), h.size()) {
        (CompKind::Snorm, CompSize::B8) => 0x10D0,
        (CompKind::Snorm, _) => 0x10D1,
        (CompKind::Unorm, CompSize::B8) => 0x10D2,
        (CompKind::Unorm, _) => 0x10D3,
        (CompKind::Sint, CompSize::B8) => 0x10D7,
        (CompKind::Sint, CompSize::B16) => 0x10D8,
        (CompKind::Sint, _) => 0x10D9,
        (CompKind::Uint, CompSize::B8) => 0x10DA,
        (CompKind::Uint, CompSize::B16) => 0x10DB,
        (CompKind::Uint, _) => 0x10DC,
        (CompKind::Float, CompSize::B16) => 0x10DD,
        (CompKind::Float, _) => 0x10DE,
    };
    // CUDA's address mode numbering: wrap 0, clamp 1, mirror 2, border 3.
    let mode = |a: AddressMode| match a {
        AddressMode::Wrap => 0,
        AddressMode::ClampToEdge => 1,
        AddressMode::Mirror => 2,
        AddressMode::Border => 3,
    };
    Some(match q {
        TexQuery::Width => h.width(),
        TexQuery::Height => h.height(),
        TexQuery::Depth if layered => 1,
        TexQuery::Depth => h.depth(),
        TexQuery::ChannelDataType => data_type,
        TexQuery::ChannelOrder => [0x10B0, 0x10B2, 0x10B4, 0x10B5][h.comps_minus_one() as usize],
        TexQuery::NormalizedCoords => s.normalized() as u32,
        TexQuery::FilterMode => s.filter() as u32,
        TexQuery::AddrMode0 => mode(s.address_u()),
        TexQuery::AddrMode1 => mode(s.address_v()),
        TexQuery::AddrMode2 => mode(s.address_p()),
        TexQuery::ArraySize if layered => h.depth(),
        TexQuery::ArraySize => 0,
        TexQuery::NumMipmapLevels => h.levels_minus_one() as u32 + 1,
        TexQuery::NumSamples => 0,
    })
}

/// The face a cube-map direction (x, y, z) points at (+x, -x, +y, -y, +z, -z: 0..5, by the
/// largest magnitude, x before y before z on ties) and the normalized coordinates on it,
/// ((s / m + 1) / 2, (t / m + 1) / 2) with CUDA's (s, t) per face: +x (-z, -y), -x (z, -y),
/// +y (x, z), -y (x, -z), +z (x, -y), -z (-x, -y).
fn cube_face([x, y, z]: [f32; 3]) -> (u64, [f32; 2]) {
    let (ax, ay, az) = (libm::fabsf(x), libm::fabsf(y), libm::fabsf(z));
    let (face, s, t, m) = if ax >= ay && ax >= az {
        if x >= 0.0 { (0, -z, -y, ax) } else { (1, z, -y, ax) }
    } else if ay >= az {
        if y >= 0.0 { (2, x, z, ay) } else { (3, x, -z, ay) }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    if m == 0.0 {
        return (0, [0.5, 0.5]);
    }
    (face, [(s / m + 1.0) * 0.5, (t / m + 1.0) * 0.5])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_directions_pick_faces_and_coordinates() {
        // Each axis hits the centre of its face.
        let axes =
            [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];
        for (face, d) in axes.into_iter().enumerate() {
            assert_eq!(cube_face(d), (face as u64, [0.5, 0.5]));
        }
        // +x with z > 0 lies left of centre (s = -z); -y with z > 0 lies above (t = -z).
        assert_eq!(cube_face([2.0, 0.0, 1.0]), (0, [0.25, 0.5]));
        assert_eq!(cube_face([0.0, -2.0, 1.0]), (3, [0.5, 0.25]));
        // Ties go to x, then y; the zero vector reads face 0's centre.
        assert_eq!(cube_face([1.0, 1.0, 1.0]).0, 0);
        assert_eq!(cube_face([0.0, -1.0, 1.0]).0, 3);
        assert_eq!(cube_face([0.0; 3]), (0, [0.5, 0.5]));
    }

    #[test]
    fn halves_decode_exactly() {
        assert_eq!(half_to_f32(0x3C00), 1.0);
        assert_eq!(half_to_f32(0xC000), -2.0);
        assert_eq!(half_to_f32(0x3555), 0.333_251_95);
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(half_to_f32(0x7C00), f32::INFINITY);
        assert!(half_to_f32(0x7E00).is_nan());
    }

    #[test]
    fn texels_decode_by_kind_with_missing_components_0_and_alpha_1() {
        let h = |kind, size, comps: u8| {
            TexHeader::new().with_kind(kind).with_size(size).with_comps_minus_one(comps - 1).with_valid(true)
        };
        let b = [255u8, 0, 128, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let v = decode_texel(&h(CompKind::Unorm, CompSize::B8, 2), &b);
        assert_eq!(v.map(f32::from_bits), [1.0, 0.0, 0.0, 1.0]);
        let v = decode_texel(&h(CompKind::Snorm, CompSize::B8, 4), &b);
        assert_eq!(v.map(f32::from_bits), [-1.0 / 127.0, 0.0, -1.0, -1.0]);
        let v = decode_texel(&h(CompKind::Sint, CompSize::B16, 1), &b);
        assert_eq!(v, [255, 0, 0, 1]);
        let v = decode_texel(&h(CompKind::Uint, CompSize::B32, 1), &b);
        assert_eq!(v, [0x8080_00FF, 0, 0, 1]);
    }
}
