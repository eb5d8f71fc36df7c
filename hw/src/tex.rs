//! Texture and surface formats: the texture header (TIC) and sampler (TSC) entries the
//! texture unit reads from the pools a channel binds with SET_TEX_HEADER_POOL and
//! SET_TEX_SAMPLER_POOL, the bindless handle that names them, and the block-linear layout
//! of CUDA arrays (GOBs of 64 bytes x 8 rows gathered into blocks).
//!
//! Hardware facts: both pools hold 32-byte entries at an address with a maximum index;
//! a Kepler-style bindless handle is the header index in bits 19:0 and the sampler index
//! in bits 31:20; a GOB is 512 bytes, 64 bytes wide and 8 rows tall, with the Fermi+
//! swizzle of [`gob_offset`]; blocks are one GOB wide and 2^h GOBs tall and 2^d deep,
//! laid out row-major. Model: the field positions inside a header and a sampler entry are
//! rgdev's own (docs/hw-model.md), simpler than NVIDIA's TEXHEAD/TEXSAMP words.

use modular_bitfield::prelude::*;

/// Bytes of one header or sampler entry.
pub const ENTRY_BYTES: u64 = 32;
/// Bits of a bindless handle's header index.
pub const HANDLE_HEADER_BITS: u32 = 20;
/// Largest sampler index a bindless handle holds (12 bits).
pub const MAX_SAMPLER_INDEX: u32 = (1 << 12) - 1;

/// A bindless texture handle: header `header` with sampler `sampler`.
pub const fn handle(header: u32, sampler: u32) -> u64 {
    (header & ((1 << HANDLE_HEADER_BITS) - 1)) as u64 | ((sampler & MAX_SAMPLER_INDEX) as u64) << HANDLE_HEADER_BITS
}

/// The (header, sampler) indices of a bindless handle.
pub const fn handle_parts(h: u64) -> (u32, u32) {
    ((h & ((1 << HANDLE_HEADER_BITS) - 1)) as u32, (h >> HANDLE_HEADER_BITS) as u32 & MAX_SAMPLER_INDEX)
}

/// Bits per component.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 2]
pub enum CompSize {
    /// 8 bits.
    B8 = 0,
    /// 16 bits.
    B16,
    /// 32 bits.
    B32,
}

impl CompSize {
    /// Bytes of one component.
    pub const fn bytes(self) -> u32 {
        match self {
            CompSize::B8 => 1,
            CompSize::B16 => 2,
            CompSize::B32 => 4,
        }
    }
}

/// How a component's bits are read (the TIC's component type).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum CompKind {
    /// Unsigned integer read as a float in [0, 1].
    Unorm = 0,
    /// Signed integer read as a float in [-1, 1].
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// IEEE float (16-bit: half precision).
    Float,
}

/// The kind of resource a header describes.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum TexShape {
    /// Linear memory read by texel index (`tex1Dfetch`).
    Buffer = 0,
    /// 1D.
    D1,
    /// 2D.
    D2,
    /// 3D.
    D3,
    /// An array of 1D layers.
    A1,
    /// An array of 2D layers.
    A2,
    /// A cube map (6 square layers).
    Cube,
}

/// Memory layout of the texels.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 1]
pub enum TexLayout {
    /// Block-linear (GOBs, blocks of [`TexHeader::gob_height`] x [`TexHeader::gob_depth`]).
    BlockLinear = 0,
    /// Pitch-linear rows [`TexHeader::pitch`] bytes apart.
    Pitch = 1,
}

/// A texture header (TIC entry, 32 bytes): format, shape, layout, address and size of a
/// texture or surface (model field positions).
#[bitfield(bits = 256)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexHeader {
    /// Components per texel minus one (0..3).
    pub comps_minus_one: B2,
    /// Bits per component.
    pub size: CompSize,
    /// How components are read.
    pub kind: CompKind,
    /// Shape.
    pub shape: TexShape,
    /// Layout.
    pub layout: TexLayout,
    /// log2 of a block's height in GOBs (block-linear).
    pub gob_height: B3,
    /// log2 of a block's depth in GOBs (block-linear).
    pub gob_depth: B3,
    /// Mipmap levels minus one (see [`TexHeader::level`]).
    pub levels_minus_one: B4,
    /// The entry is valid.
    pub valid: bool,
    #[skip]
    __: B10,
    /// Virtual address of texel (0, 0, 0).
    pub address: B40,
    #[skip]
    __: B24,
    /// Width in texels.
    pub width: B32,
    /// Height in texels (1 for 1D).
    pub height: B32,
    /// Depth of a 3D texture, or layers of an array (1 otherwise).
    pub depth: B32,
    /// Bytes between rows (pitch layout).
    pub pitch: B32,
    #[skip]
    __: B32,
}

impl TexHeader {
    /// Components per texel.
    pub fn comps(&self) -> u32 {
        self.comps_minus_one() as u32 + 1
    }
    /// Bytes per texel, if the format decodes.
    pub fn texel_bytes(&self) -> Option<u32> {
        Some(self.size_or_err().ok()?.bytes() * self.comps())
    }
    /// The block-linear layout of one layer (a 3D texture's whole volume), if the header
    /// is block-linear and decodes.
    pub fn block_linear(&self) -> Option<BlockLinear> {
        let shape = self.shape_or_err().ok()?;
        let depth = if shape == TexShape::D3 { self.depth() as u64 } else { 1 };
        (self.layout_or_err().ok()? == TexLayout::BlockLinear).then_some(BlockLinear {
            width: self.width() as u64 * self.texel_bytes()? as u64,
            height: self.height() as u64,
            depth,
            gob_height: self.gob_height(),
            gob_depth: self.gob_depth(),
        })
    }
    /// Mipmap level `l` as a texture of its own (model layout): level k is max(1, n >> k)
    /// texels along each axis that shrinks (width; height but of 1D shapes; depth of 3D),
    /// laid out block-linear with the block [`BlockLinear::for_extent`] picks for it; the
    /// levels follow one another from `address`, each a whole number of blocks (times the
    /// layers of an array). None past the last level, or if the header does not decode.
    pub fn level(&self, l: u32) -> Option<TexHeader> {
        if l > self.levels_minus_one() as u32 {
            return None;
        }
        let shape = self.shape_or_err().ok()?;
        let tb = self.texel_bytes()? as u64;
        let (shrink_h, shrink_d) = match shape {
            TexShape::D1 | TexShape::A1 | TexShape::Buffer => (false, false),
            TexShape::D2 | TexShape::A2 | TexShape::Cube => (true, false),
            TexShape::D3 => (true, true),
        };
        let dims = |k: u32| {
            let n = |v: u32, s: bool| if s { (v >> k).max(1) } else { v.max(1) };
            (n(self.width(), true), n(self.height(), shrink_h), n(self.depth(), shrink_d))
        };
        let layout = |(w, h, d): (u32, u32, u32)| {
            let slices = if shape == TexShape::D3 { d as u64 } else { 1 };
            BlockLinear::for_extent(w as u64 * tb, h as u64, slices)
        };
        let layers = |d: u32| if shape == TexShape::D3 { 1 } else { d as u64 };
        let mut address = self.address();
        for k in 0..l {
            let d = dims(k);
            address += layout(d).size() * layers(d.2);
        }
        let d = dims(l);
        let bl = layout(d);
        Some(
            self.with_address(address)
                .with_width(d.0)
                .with_height(d.1)
                .with_depth(d.2)
                .with_gob_height(bl.gob_height)
                .with_gob_depth(bl.gob_depth)
                .with_levels_minus_one(0),
        )
    }
}

/// What a coordinate outside the texture reads (TSC address mode, hardware numbering).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum AddressMode {
    /// Repeat (normalized coordinates only; clamps otherwise).
    Wrap = 0,
    /// Repeat mirrored (normalized coordinates only; clamps otherwise).
    Mirror,
    /// Clamp to the edge texel.
    ClampToEdge,
    /// The border color.
    Border,
}

/// Texel filtering.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 1]
pub enum Filter {
    /// The nearest texel.
    Point = 0,
    /// Linear interpolation of the 2, 4 or 8 nearest texels, weights in 1.8 fixed point.
    Linear,
}

/// A sampler (TSC entry, 32 bytes): address modes, filter, coordinate normalization and
/// border color (model field positions).
#[bitfield(bits = 256)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexSampler {
    /// Address mode of x (u).
    pub address_u: AddressMode,
    /// Address mode of y (v).
    pub address_v: AddressMode,
    /// Address mode of z (p).
    pub address_p: AddressMode,
    /// Filter.
    pub filter: Filter,
    /// Coordinates are normalized to [0, 1) (else texel units).
    pub normalized: bool,
    /// The entry is valid.
    pub valid: bool,
    /// Filtering between mipmap levels (point: the nearest level).
    pub mip_filter: Filter,
    #[skip]
    __: B19,
    /// Level-of-detail bias, signed 5.8 fixed point.
    pub lod_bias: B13,
    #[skip]
    __: B3,
    /// Least level of detail, 4.8 fixed point.
    pub min_lod: B12,
    /// Greatest level of detail, 4.8 fixed point.
    pub max_lod: B12,
    #[skip]
    __: B56,
    /// Border color, red (f32 bits; integer formats read the bits as an integer).
    pub border_r: B32,
    /// Border color, green.
    pub border_g: B32,
    /// Border color, blue.
    pub border_b: B32,
    /// Border color, alpha.
    pub border_a: B32,
}

/// Fraction bits of the sampler's level-of-detail fields.
pub const LOD_FRACTION_BITS: u32 = 8;

impl TexSampler {
    /// The level-of-detail bias.
    pub fn bias(&self) -> f32 {
        // Sign-extend the 13-bit field.
        ((self.lod_bias() as i32) << 19 >> 19) as f32 / (1 << LOD_FRACTION_BITS) as f32
    }
    /// The least and greatest level of detail.
    pub fn lod_range(&self) -> (f32, f32) {
        let f = |v: u16| v as f32 / (1 << LOD_FRACTION_BITS) as f32;
        (f(self.min_lod()), f(self.max_lod()))
    }
    /// The border color's four words.
    pub fn border(&self) -> [u32; 4] {
        [self.border_r(), self.border_g(), self.border_b(), self.border_a()]
    }
}

/// GOB width in bytes.
pub const GOB_WIDTH: u64 = 64;
/// GOB height in rows.
pub const GOB_ROWS: u64 = 8;
/// GOB size in bytes.
pub const GOB_BYTES: u64 = GOB_WIDTH * GOB_ROWS;
/// Largest log2 of a block's height or depth in GOBs.
pub const MAX_BLOCK_LOG2: u8 = 5;

/// Byte `x` (< 64) of row `y` (< 8) in a GOB: 16-byte pieces of two rows, in 32-byte
/// halves, then 64-byte row pairs, then the right 32 bytes.
pub const fn gob_offset(x: u64, y: u64) -> u64 {
    (x % 64 / 32) * 256 + (y % 8 / 2) * 64 + (x % 32 / 16) * 32 + (y % 2) * 16 + x % 16
}

/// A block-linear surface: `width` bytes by `height` rows by `depth` slices in blocks of
/// 1 x 2^gob_height x 2^gob_depth GOBs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLinear {
    /// Bytes per row.
    pub width: u64,
    /// Rows.
    pub height: u64,
    /// Slices.
    pub depth: u64,
    /// log2 of a block's height in GOBs.
    pub gob_height: u8,
    /// log2 of a block's depth in GOBs.
    pub gob_depth: u8,
}

impl BlockLinear {
    /// The block shape a driver picks for `height` rows and `depth` slices: the smallest
    /// block that covers them, at most 32 GOBs each way.
    pub fn for_extent(width: u64, height: u64, depth: u64) -> Self {
        let log2_cover = |n: u64| (n.max(1).next_power_of_two().trailing_zeros() as u8).min(MAX_BLOCK_LOG2);
        Self { width, height, depth, gob_height: log2_cover(height.div_ceil(GOB_ROWS)), gob_depth: log2_cover(depth) }
    }
    /// Bytes of one block.
    pub fn block_bytes(&self) -> u64 {
        GOB_BYTES << (self.gob_height + self.gob_depth)
    }
    fn block_rows(&self) -> u64 {
        GOB_ROWS << self.gob_height
    }
    /// Blocks per row of blocks, rows of blocks, and slices of blocks.
    fn blocks(&self) -> (u64, u64, u64) {
        (
            self.width.div_ceil(GOB_WIDTH),
            self.height.div_ceil(self.block_rows()),
            self.depth.div_ceil(1 << self.gob_depth),
        )
    }
    /// Bytes the surface occupies (whole blocks).
    pub fn size(&self) -> u64 {
        let (x, y, z) = self.blocks();
        x * y * z * self.block_bytes()
    }
    /// Offset of byte `x` of row `y` of slice `z` from the surface's start.
    pub fn offset(&self, x: u64, y: u64, z: u64) -> u64 {
        let (bx, by, _) = self.blocks();
        let rows = self.block_rows();
        let slices = 1u64 << self.gob_depth;
        let block = ((z / slices) * by + y / rows) * bx + x / GOB_WIDTH;
        let gob = (z % slices) * (1 << self.gob_height) + y % rows / GOB_ROWS;
        block * self.block_bytes() + gob * GOB_BYTES + gob_offset(x % GOB_WIDTH, y % GOB_ROWS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_levels_follow_one_another_and_halve() {
        // A 2D float4 texture 100 x 20 with 4 levels: 100x20, 50x10, 25x5, 12x2.
        let h = TexHeader::new()
            .with_comps_minus_one(3)
            .with_size(CompSize::B32)
            .with_kind(CompKind::Float)
            .with_shape(TexShape::D2)
            .with_address(0x10000)
            .with_width(100)
            .with_height(20)
            .with_depth(1)
            .with_levels_minus_one(3);
        let l0 = h.level(0).unwrap();
        assert_eq!((l0.address(), l0.width(), l0.height(), l0.levels_minus_one()), (0x10000, 100, 20, 0));
        let size = |l: &TexHeader| l.block_linear().unwrap().size();
        let l1 = h.level(1).unwrap();
        assert_eq!((l1.width(), l1.height()), (50, 10));
        assert_eq!(l1.address(), 0x10000 + size(&l0));
        let l3 = h.level(3).unwrap();
        assert_eq!((l3.width(), l3.height(), l3.gob_height()), (12, 2, 0));
        assert_eq!(l3.address(), l1.address() + size(&l1) + size(&h.level(2).unwrap()));
        assert!(h.level(4).is_none());
        // A 3D texture's depth shrinks too, never below 1; a 1D texture's height stays 1.
        let v = h.with_shape(TexShape::D3).with_width(8).with_height(4).with_depth(2).with_levels_minus_one(3);
        assert_eq!(v.level(2).map(|l| (l.width(), l.height(), l.depth())), Some((2, 1, 1)));
        let line = h.with_shape(TexShape::D1).with_height(1).with_levels_minus_one(2);
        assert_eq!(line.level(2).map(|l| (l.width(), l.height())), Some((25, 1)));
    }

    #[test]
    fn sampler_lod_fields_are_fixed_point() {
        let s =
            TexSampler::new().with_lod_bias((-3i32 * 64) as u16 & 0x1FFF).with_min_lod(256).with_max_lod(3 * 256 + 128);
        assert_eq!(s.bias(), -0.75);
        assert_eq!(s.lod_range(), (1.0, 3.5));
    }

    #[test]
    fn gob_swizzle_is_a_permutation_of_512_bytes() {
        let mut seen = [false; 512];
        for y in 0..8 {
            for x in 0..64 {
                let o = gob_offset(x, y) as usize;
                assert!(!seen[o]);
                seen[o] = true;
            }
        }
        // 16-byte runs stay contiguous; the second row of a pair follows the first.
        assert_eq!((gob_offset(15, 0), gob_offset(0, 1), gob_offset(16, 0), gob_offset(32, 0)), (15, 16, 32, 256));
        assert_eq!(gob_offset(0, 2), 64);
    }

    #[test]
    fn block_linear_offsets_cover_the_surface_once() {
        let bl = BlockLinear { width: 200, height: 20, depth: 3, gob_height: 1, gob_depth: 1 };
        assert_eq!(bl.block_bytes(), 2048);
        // 4 block columns x 2 block rows (16 rows each) x 2 block slices.
        assert_eq!(bl.size(), 4 * 2 * 2 * 2048);
        let mut seen = [false; 32768];
        assert_eq!(bl.size(), 32768);
        for z in 0..3 {
            for y in 0..20 {
                for x in 0..200 {
                    let o = bl.offset(x, y, z) as usize;
                    assert!(o < bl.size() as usize && !seen[o]);
                    seen[o] = true;
                }
            }
        }
        // The second block column starts one block in; the next block row after all columns.
        assert_eq!(bl.offset(64, 0, 0), 2048);
        assert_eq!(bl.offset(0, 16, 0), 4 * 2048);
        assert_eq!(bl.offset(0, 8, 0), 512);
        assert_eq!(bl.offset(0, 0, 1), 1024);
    }

    #[test]
    fn block_shapes_cover_the_extent_up_to_32_gobs() {
        let b = BlockLinear::for_extent(64, 1, 1);
        assert_eq!((b.gob_height, b.gob_depth), (0, 0));
        let b = BlockLinear::for_extent(64, 17, 5);
        assert_eq!((b.gob_height, b.gob_depth), (2, 3));
        let b = BlockLinear::for_extent(64, 100_000, 1000);
        assert_eq!((b.gob_height, b.gob_depth), (5, 5));
    }

    #[test]
    fn handles_and_entries_round_trip() {
        assert_eq!(handle(5, 7), 5 | 7 << 20);
        assert_eq!(handle_parts(handle(0xF_FFFF, 4095)), (0xF_FFFF, 4095));
        let h = TexHeader::new()
            .with_comps_minus_one(3)
            .with_size(CompSize::B16)
            .with_kind(CompKind::Float)
            .with_shape(TexShape::A2)
            .with_address(0xAB_1234_5678)
            .with_width(100)
            .with_height(7)
            .with_depth(3)
            .with_valid(true);
        let back = TexHeader::from_bytes(h.into_bytes());
        assert_eq!(back, h);
        assert_eq!((back.texel_bytes(), back.address()), (Some(8), 0xAB_1234_5678));
        assert_eq!(back.block_linear().map(|b| (b.width, b.depth)), Some((800, 1)));
        let s = TexSampler::new().with_address_v(AddressMode::Border).with_border_a(0x3F80_0000);
        assert_eq!(TexSampler::from_bytes(s.into_bytes()).border(), [0, 0, 0, 0x3F80_0000]);
    }
}
