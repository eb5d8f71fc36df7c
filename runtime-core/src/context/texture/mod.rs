//! CUDA arrays, texture objects and surface objects of a context.
//!
//! - An array is VRAM laid out block-linear (`hw::tex::BlockLinear`, the block shape a
//!   driver picks for its height and depth), mapped into the context's address space;
//!   the layers of a layered array follow one another.
//! - Texture and surface objects are entries of the context's texture header pool and
//!   sampler pool (4096 32-byte entries each, made on first use), written through PRAMIN;
//!   every launch binds the pools (SET_TEX_HEADER_POOL, SET_TEX_SAMPLER_POOL). A texture
//!   object's handle is the bindless handle the texture unit reads (`hw::tex::handle`):
//!   its header index with a sampler of the same index; a surface object's is its header
//!   index. Index 0 is never used, so 0 is no object.
//! - Copies between arrays and pitch-linear memory (device or staged host memory) are
//!   copy-engine launches with a block-linear side, one per slice (`array_copy`).

use super::Inner;
use super::memory::Owner;
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::limits::TextureLimits;
use crate::platform::Platform;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::class::{addr40, compute, subch};
use hw::tex::{
    AddressMode, BlockLinear, CompKind, CompSize, ENTRY_BYTES, Filter, TexHeader, TexLayout, TexSampler, TexShape,
};

mod array_copy;
pub(crate) use array_copy::{Endpoint, HostSide, Surface, copy_surfaces};

/// Entries of each pool (sampler indices have 12 bits in a handle).
pub const POOL_ENTRIES: u32 = 4096;
/// Bytes of one pool; the sampler pool follows the header pool.
const POOL_BYTES: u64 = POOL_ENTRIES as u64 * ENTRY_BYTES;

/// An element format of an array or texture (`CUarray_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CU_AD_FORMAT_UNSIGNED_INT8.
    U8 = 0x01,
    /// CU_AD_FORMAT_UNSIGNED_INT16.
    U16 = 0x02,
    /// CU_AD_FORMAT_UNSIGNED_INT32.
    U32 = 0x03,
    /// CU_AD_FORMAT_SIGNED_INT8.
    S8 = 0x08,
    /// CU_AD_FORMAT_SIGNED_INT16.
    S16 = 0x09,
    /// CU_AD_FORMAT_SIGNED_INT32.
    S32 = 0x0a,
    /// CU_AD_FORMAT_HALF.
    Half = 0x10,
    /// CU_AD_FORMAT_FLOAT.
    Float = 0x20,
}

impl Format {
    /// The format with CUDA's number `v`.
    pub fn from_cu(v: u32) -> Option<Self> {
        Some(match v {
            0x01 => Self::U8,
            0x02 => Self::U16,
            0x03 => Self::U32,
            0x08 => Self::S8,
            0x09 => Self::S16,
            0x0a => Self::S32,
            0x10 => Self::Half,
            0x20 => Self::Float,
            _ => return None,
        })
    }
    /// Bytes of one component.
    pub fn bytes(self) -> u64 {
        self.size().bytes() as u64
    }
    fn size(self) -> CompSize {
        match self {
            Self::U8 | Self::S8 => CompSize::B8,
            Self::U16 | Self::S16 | Self::Half => CompSize::B16,
            _ => CompSize::B32,
        }
    }
    /// How a texture reads it: 8- and 16-bit integers as normalized floats unless read as
    /// integers (32-bit integers always as integers).
    fn kind(self, read_as_integer: bool) -> CompKind {
        let norm = !read_as_integer && self.bytes() < 4;
        match self {
            Self::U8 | Self::U16 | Self::U32 if norm => CompKind::Unorm,
            Self::S8 | Self::S16 | Self::S32 if norm => CompKind::Snorm,
            Self::U8 | Self::U16 | Self::U32 => CompKind::Uint,
            Self::S8 | Self::S16 | Self::S32 => CompKind::Sint,
            Self::Half | Self::Float => CompKind::Float,
        }
    }
}

/// CUDA_ARRAY3D_LAYERED.
pub const ARRAY_LAYERED: u32 = 0x01;
/// CUDA_ARRAY3D_SURFACE_LDST.
pub const ARRAY_SURFACE_LDST: u32 = 0x02;
/// CUDA_ARRAY3D_CUBEMAP.
pub const ARRAY_CUBEMAP: u32 = 0x04;
/// CUDA_ARRAY3D_TEXTURE_GATHER.
pub const ARRAY_TEXTURE_GATHER: u32 = 0x08;

/// An array's shape and format (`CUDA_ARRAY3D_DESCRIPTOR`): height 0 for 1D, depth 0 for
/// 1D and 2D (the layer count when layered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    /// Width in elements.
    pub width: u64,
    /// Height (0: 1D).
    pub height: u64,
    /// Depth, or layers of a layered array (0: 1D or 2D).
    pub depth: u64,
    /// Element format.
    pub format: Format,
    /// Components per element: 1, 2 or 4.
    pub channels: u32,
    /// CUDA_ARRAY3D_* flags.
    pub flags: u32,
}

impl ArrayDesc {
    /// Bytes of one element.
    pub fn element_bytes(&self) -> u64 {
        self.format.bytes() * self.channels as u64
    }
    /// Layers follow one another: a layered array, or a cube map's six faces.
    fn layered(&self) -> bool {
        self.flags & (ARRAY_LAYERED | ARRAY_CUBEMAP) != 0
    }
    /// The shape a texture of the whole array has.
    fn shape(&self) -> TexShape {
        if self.flags & ARRAY_CUBEMAP != 0 {
            return TexShape::Cube;
        }
        match (self.layered(), self.height, self.depth) {
            (true, 0, _) => TexShape::A1,
            (true, _, _) => TexShape::A2,
            (false, 0, _) => TexShape::D1,
            (false, _, 0) => TexShape::D2,
            _ => TexShape::D3,
        }
    }
    /// The architecture's limits (`lim`, the device attributes' MAXIMUM_TEXTURE* and,
    /// for CUDA_ARRAY3D_SURFACE_LDST, MAXIMUM_SURFACE*): INVALID_VALUE outside them; a
    /// cube map has six square faces (`depth` 6); gather is for 2D arrays; layered cube
    /// maps and flags rgdev does not have are NOT_SUPPORTED.
    fn check(&self, lim: &TextureLimits) -> Result<()> {
        let known = ARRAY_LAYERED | ARRAY_SURFACE_LDST | ARRAY_CUBEMAP | ARRAY_TEXTURE_GATHER;
        let layered_cube = ARRAY_LAYERED | ARRAY_CUBEMAP;
        if self.flags & !known != 0 || self.flags & layered_cube == layered_cube {
            return Err(if self.flags & !0xFF == 0 { CuError::NotSupported } else { CuError::InvalidValue });
        }
        if !matches!(self.channels, 1 | 2 | 4)
            || self.width == 0
            || (self.height == 0 && self.depth != 0 && !self.layered())
        {
            return Err(CuError::InvalidValue);
        }
        let (w, h, d) = (self.width, self.height, self.depth);
        let le = |v: u64, max: u32| v <= u64::from(max);
        let within = |max: [u32; 3]| le(w, max[0]) && le(h, max[1]) && le(d, max[2]);
        let layers = |max: u32| (1..=u64::from(max)).contains(&d);
        let shape = self.shape();
        let gather = self.flags & ARRAY_TEXTURE_GATHER != 0;
        let texture = match shape {
            TexShape::Cube => w == h && le(w, lim.cubemap) && d == 6,
            TexShape::A1 => le(w, lim.tex1d_layered[0]) && layers(lim.tex1d_layered[1]),
            TexShape::A2 => le(w, lim.tex2d_layered[0]) && le(h, lim.tex2d_layered[1]) && layers(lim.tex2d_layered[2]),
            TexShape::D1 => le(w, lim.tex1d),
            TexShape::D2 if gather => le(w, lim.tex2d_gather[0]) && le(h, lim.tex2d_gather[1]),
            TexShape::D2 => le(w, lim.tex2d[0]) && le(h, lim.tex2d[1]),
            _ => within(lim.tex3d) || within(lim.tex3d_alt),
        };
        let surface = self.flags & ARRAY_SURFACE_LDST == 0
            || match shape {
                TexShape::Cube => le(w, lim.surfcube),
                TexShape::A1 => le(w, lim.surf1d_layered[0]) && layers(lim.surf1d_layered[1]),
                TexShape::A2 => {
                    le(w, lim.surf2d_layered[0]) && le(h, lim.surf2d_layered[1]) && layers(lim.surf2d_layered[2])
                }
                TexShape::D1 => le(w, lim.surf1d),
                TexShape::D2 => le(w, lim.surf2d[0]) && le(h, lim.surf2d[1]),
                _ => within(lim.surf3d),
            };
        if texture && surface && (!gather || shape == TexShape::D2) { Ok(()) } else { Err(CuError::InvalidValue) }
    }
}

/// An array: its descriptor, memory and layout.
pub(crate) struct Array {
    pub(crate) va: u64,
    pub(crate) desc: ArrayDesc,
    /// The layout of one layer (a 3D array's whole volume).
    bl: BlockLinear,
    /// The mipmapped array this is a level of (its memory is the mipmapped array's).
    level_of: Option<u64>,
}

/// A mipmapped array (cuMipmappedArrayCreate): its levels one after another from `va`
/// (`hw::tex::TexHeader::level` lays them out).
pub(crate) struct Mipmapped {
    va: u64,
    /// Level 0's descriptor.
    desc: ArrayDesc,
    levels: u32,
    /// The arrays cuMipmappedArrayGetLevel made, by level.
    views: BTreeMap<u32, u64>,
}

impl Array {
    /// Bytes from one layer to the next.
    fn layer_bytes(&self) -> u64 {
        self.bl.size()
    }
    /// The array as a copy endpoint.
    pub(crate) fn surface(&self) -> Surface {
        Surface::Block { va: self.va, bl: self.bl, layer_bytes: self.layer_bytes(), layered: self.desc.layered() }
    }
    /// Its extent as a copy sees it: bytes per row, rows, slices (or layers).
    pub(crate) fn extent(&self) -> [u64; 3] {
        [self.bl.width, self.desc.height.max(1), self.desc.depth.max(1)]
    }
}

/// What a texture object reads (`CUDA_RESOURCE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// An array (its id in the context).
    Array(u64),
    /// A mipmapped array (its id in the context), every level.
    Mipmapped(u64),
    /// Linear memory read by element index (`tex1Dfetch`).
    Linear {
        /// Device pointer.
        ptr: u64,
        /// Element format.
        format: Format,
        /// Components per element.
        channels: u32,
        /// Bytes.
        bytes: u64,
    },
    /// Pitch-linear 2D memory.
    Pitch2D {
        /// Device pointer.
        ptr: u64,
        /// Element format.
        format: Format,
        /// Components per element.
        channels: u32,
        /// Width in elements.
        width: u64,
        /// Height in rows.
        height: u64,
        /// Bytes between rows.
        pitch: u64,
    },
}

impl Resource {
    /// Whether linear memory starts at a multiple of `align` (arrays always do).
    pub(super) fn aligned(&self, align: u64) -> bool {
        match *self {
            Self::Array(_) | Self::Mipmapped(_) => true,
            Self::Linear { ptr, .. } | Self::Pitch2D { ptr, .. } => ptr.is_multiple_of(align),
        }
    }
}

/// How a texture object samples (`CUDA_TEXTURE_DESC`, CUDA's numbers); the default is
/// CUDA's zeroed descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TexDesc {
    /// CUaddress_mode per dimension (wrap 0, clamp 1, mirror 2, border 3).
    pub address: [u32; 3],
    /// CUfilter_mode (point 0, linear 1).
    pub filter: u32,
    /// CU_TRSF_* flags (read as integer 0x01, normalized coordinates 0x02).
    pub flags: u32,
    /// Border color.
    pub border: [f32; 4],
    /// CUfilter_mode between mipmap levels.
    pub mip_filter: u32,
    /// Added to the level of detail.
    pub mip_bias: f32,
    /// The least and greatest level of detail.
    pub mip_clamp: [f32; 2],
}

/// CU_TRSF_READ_AS_INTEGER.
pub const TRSF_READ_AS_INTEGER: u32 = 0x01;
/// CU_TRSF_NORMALIZED_COORDINATES.
pub const TRSF_NORMALIZED_COORDINATES: u32 = 0x02;
/// CU_TRSF_SRGB.
pub const TRSF_SRGB: u32 = 0x10;
/// CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION.
pub const TRSF_DISABLE_TRILINEAR: u32 = 0x20;
/// CU_TRSF_SEAMLESS_CUBEMAP.
pub const TRSF_SEAMLESS_CUBEMAP: u32 = 0x40;
/// Every CU_TRSF_* flag CUDA defines.
pub const TRSF_ALL: u32 =
    TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES | TRSF_SRGB | TRSF_DISABLE_TRILINEAR | TRSF_SEAMLESS_CUBEMAP;

/// A texture or surface object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Object {
    /// A texture object.
    Texture(Resource, TexDesc),
    /// A surface object over an array.
    Surface(u64),
}

/// The context's header and sampler pools and the objects in them.
pub(crate) struct Pools {
    /// Device address of the header pool; the sampler pool follows it.
    va: u64,
    /// Its physical address (entries are written through PRAMIN).
    phys: u64,
    objects: BTreeMap<u32, Object>,
    next: u32,
    free: Vec<u32>,
}

/// The alignment texture resources in linear memory need (TEXTURE_ALIGNMENT).
pub const TEXTURE_ALIGNMENT: u64 = 512;
/// The row alignment of pitch-linear 2D textures (TEXTURE_PITCH_ALIGNMENT).
pub const TEXTURE_PITCH_ALIGNMENT: u64 = 32;

/// The header of a texture over an array described by `desc` at `va` (its elements read
/// as floats: the caller sets the kind), laid out as [`Inner::array_create`] lays it out.
fn array_header(desc: &ArrayDesc, va: u64) -> TexHeader {
    let slices = if desc.shape() == TexShape::D3 { desc.depth } else { 1 };
    let bl = BlockLinear::for_extent(desc.width * desc.element_bytes(), desc.height.max(1), slices);
    TexHeader::new()
        .with_comps_minus_one(desc.channels as u8 - 1)
        .with_size(desc.format.size())
        .with_kind(desc.format.kind(false))
        .with_valid(true)
        .with_shape(desc.shape())
        .with_layout(TexLayout::BlockLinear)
        .with_gob_height(bl.gob_height)
        .with_gob_depth(bl.gob_depth)
        .with_address(va)
        .with_width(desc.width as u32)
        .with_height(desc.height.max(1) as u32)
        .with_depth(desc.depth.max(1) as u32)
}

fn words(bytes: [u8; 32]) -> [u32; 8] {
    core::array::from_fn(|i| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]))
}

impl Inner {
    /// VRAM of `bytes` for an array and a new id for it (nothing is kept on an error).
    fn alloc_array<P: Platform>(&mut self, gpu: &Device<P>, bytes: u64) -> Result<(u64, u64)> {
        let va = self.alloc_vram(gpu, bytes, Owner::Runtime)?;
        match self.new_id() {
            Ok(id) => Ok((va, id)),
            Err(e) => {
                let _ = self.free_now(gpu, va);
                Err(e)
            }
        }
    }

    /// Make an array (cuArray3DCreate); returns its id.
    pub(crate) fn array_create<P: Platform>(&mut self, gpu: &Device<P>, desc: ArrayDesc) -> Result<u64> {
        desc.check(self.tex_limits)?;
        let layered = desc.layered();
        let depth = if layered || desc.depth == 0 { 1 } else { desc.depth };
        let bl = BlockLinear::for_extent(desc.width * desc.element_bytes(), desc.height.max(1), depth);
        let layers = if layered { desc.depth } else { 1 };
        let bytes = bl.size().checked_mul(layers).ok_or(CuError::OutOfMemory)?;
        let (va, id) = self.alloc_array(gpu, bytes)?;
        self.arrays.insert(id, Array { va, desc, bl, level_of: None });
        Ok(id)
    }

    /// Make a mipmapped array of `levels` levels (cuMipmappedArrayCreate); returns its id.
    /// 1D, 2D and 3D arrays (layered and cube-map ones are NOT_SUPPORTED), within the
    /// architecture's mipmapped limits (MAXIMUM_TEXTURE1D/2D_MIPMAPPED_*, 3D's own), of at
    /// most 1 + log2 of the largest extent levels.
    pub(crate) fn mipmapped_create<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        desc: ArrayDesc,
        levels: u32,
    ) -> Result<u64> {
        desc.check(self.tex_limits)?;
        if desc.flags & (ARRAY_LAYERED | ARRAY_CUBEMAP) != 0 {
            return Err(CuError::NotSupported);
        }
        let lim = self.tex_limits;
        let (w, h, d) = (desc.width, desc.height, desc.depth);
        let le = |v: u64, max: u32| v <= u64::from(max);
        let fits = match desc.shape() {
            TexShape::D1 => le(w, lim.tex1d_mipmapped),
            TexShape::D2 => le(w, lim.tex2d_mipmapped[0]) && le(h, lim.tex2d_mipmapped[1]),
            _ => le(w, lim.tex3d[0]) && le(h, lim.tex3d[1]) && le(d, lim.tex3d[2]),
        };
        let most = 64 - w.max(h).max(d).leading_zeros();
        if !fits || levels == 0 || levels > most || levels > 16 {
            return Err(CuError::InvalidValue);
        }
        let base = array_header(&desc, 0).with_levels_minus_one(levels as u8 - 1);
        let last = base.level(levels - 1).ok_or(CuError::InvalidValue)?;
        let bytes = last.address() + last.block_linear().ok_or(CuError::InvalidValue)?.size();
        let (va, id) = self.alloc_array(gpu, bytes)?;
        self.mipmaps.insert(id, Mipmapped { va, desc, levels, views: BTreeMap::new() });
        Ok(id)
    }

    /// Level `level` of mipmapped array `id` as an array (cuMipmappedArrayGetLevel): the
    /// same array each time, destroyed with the mipmapped array.
    pub(crate) fn mipmapped_level(&mut self, id: u64, level: u32) -> Result<u64> {
        let m = self.mipmaps.get(&id).ok_or(CuError::InvalidHandle)?;
        if level >= m.levels {
            return Err(CuError::InvalidValue);
        }
        if let Some(&v) = m.views.get(&level) {
            return Ok(v);
        }
        let (va, desc, levels) = (m.va, m.desc, m.levels);
        let base = array_header(&desc, va).with_levels_minus_one(levels as u8 - 1);
        let l = base.level(level).ok_or(CuError::InvalidValue)?;
        let bl = l.block_linear().ok_or(CuError::InvalidValue)?;
        let shrunk = |n: u64| if n == 0 { 0 } else { (n >> level).max(1) };
        let ldesc =
            ArrayDesc { width: shrunk(desc.width), height: shrunk(desc.height), depth: shrunk(desc.depth), ..desc };
        let view = self.new_id()?;
        self.arrays.insert(view, Array { va: l.address(), desc: ldesc, bl, level_of: Some(id) });
        if let Some(m) = self.mipmaps.get_mut(&id) {
            m.views.insert(level, view);
        }
        Ok(view)
    }

    /// Free a mipmapped array and its levels' arrays (the caller has waited for the work
    /// using them).
    pub(crate) fn mipmapped_destroy<P: Platform>(&mut self, gpu: &Device<P>, id: u64) -> Result<()> {
        let m = self.mipmaps.remove(&id).ok_or(CuError::InvalidHandle)?;
        for view in m.views.into_values() {
            self.arrays.remove(&view);
            self.refs_unbind_array(view);
        }
        self.refs_unbind_array(id);
        self.free_now(gpu, m.va)
    }

    /// Whether `id` names a mipmapped array of this context.
    pub(crate) fn mipmapped(&self, id: u64) -> Result<()> {
        self.mipmapped_desc(id).map(drop)
    }

    /// A mipmapped array's level-0 descriptor.
    pub(crate) fn mipmapped_desc(&self, id: u64) -> Result<ArrayDesc> {
        self.mipmaps.get(&id).map(|m| m.desc).ok_or(CuError::InvalidHandle)
    }

    /// Free an array (the caller has waited for the work using it).
    pub(crate) fn array_destroy<P: Platform>(&mut self, gpu: &Device<P>, id: u64) -> Result<()> {
        // A mipmapped array's level is freed with it.
        if self.array(id)?.level_of.is_some() {
            return Err(CuError::InvalidHandle);
        }
        let a = self.arrays.remove(&id).ok_or(CuError::InvalidHandle)?;
        self.refs_unbind_array(id);
        self.free_now(gpu, a.va)
    }

    /// An array.
    pub(crate) fn array(&self, id: u64) -> Result<&Array> {
        self.arrays.get(&id).ok_or(CuError::InvalidHandle)
    }

    /// Where the pools are (none before the first object): (address, bytes).
    pub(crate) fn pools_extent(&self) -> Option<(u64, u64)> {
        self.pools.as_ref().map(|p| (p.va, 2 * POOL_BYTES))
    }

    /// The memory of an array or mipmapped array `id`: its device address.
    pub(crate) fn array_memory(&self, id: u64) -> Result<u64> {
        match (self.arrays.get(&id), self.mipmaps.get(&id)) {
            (Some(a), _) if a.level_of.is_none() => Ok(a.va),
            (_, Some(m)) => Ok(m.va),
            _ => Err(CuError::InvalidHandle),
        }
    }

    /// The pools, made on first use.
    pub(super) fn pools<P: Platform>(&mut self, gpu: &Device<P>) -> Result<&mut Pools> {
        if self.pools.is_none() {
            let bytes = 2 * POOL_BYTES;
            let va = self.alloc_vram(gpu, bytes, Owner::Runtime)?;
            let phys = self.vram_phys(va).ok_or(CuError::Unknown)?;
            gpu.pramin_zero(phys, bytes)?;
            self.pools = Some(Pools { va, phys, objects: BTreeMap::new(), next: 1, free: Vec::new() });
        }
        self.pools.as_mut().ok_or(CuError::Unknown)
    }

    /// The header of a texture over `res` read as `desc` says (or of a surface over an
    /// array when `desc` is `None`). The caller has checked the base's alignment
    /// ([`Resource::aligned`]).
    pub(super) fn header(&self, res: Resource, desc: Option<&TexDesc>) -> Result<TexHeader> {
        let read_int = desc.is_none_or(|d| d.flags & TRSF_READ_AS_INTEGER != 0);
        let h = |format: Format, channels: u32| {
            TexHeader::new()
                .with_comps_minus_one(channels as u8 - 1)
                .with_size(format.size())
                .with_kind(format.kind(read_int))
                .with_valid(true)
        };
        let check_fmt = |channels: u32| if matches!(channels, 1 | 2 | 4) { Ok(()) } else { Err(CuError::InvalidValue) };
        Ok(match res {
            Resource::Array(id) => {
                let a = self.array(id)?;
                array_header(&a.desc, a.va).with_kind(a.desc.format.kind(read_int))
            }
            Resource::Mipmapped(id) => {
                let m = self.mipmaps.get(&id).ok_or(CuError::InvalidValue)?;
                array_header(&m.desc, m.va)
                    .with_kind(m.desc.format.kind(read_int))
                    .with_levels_minus_one(m.levels as u8 - 1)
            }
            Resource::Linear { ptr, format, channels, bytes } => {
                check_fmt(channels)?;
                let eb = format.bytes() * channels as u64;
                let width = bytes / eb;
                if width == 0 || width > u64::from(self.tex_limits.tex1d_linear) {
                    return Err(CuError::InvalidValue);
                }
                self.check_range(ptr, bytes, false)?;
                h(format, channels)
                    .with_shape(TexShape::Buffer)
                    .with_layout(TexLayout::Pitch)
                    .with_address(ptr)
                    .with_width(width as u32)
            }
            Resource::Pitch2D { ptr, format, channels, width, height, pitch } => {
                check_fmt(channels)?;
                let eb = format.bytes() * channels as u64;
                let [max_w, max_h, max_pitch] = self.tex_limits.tex2d_linear.map(u64::from);
                let ok = pitch.is_multiple_of(TEXTURE_PITCH_ALIGNMENT)
                    && (1..=max_w).contains(&width)
                    && (1..=max_h).contains(&height)
                    && pitch >= width * eb
                    && pitch <= max_pitch;
                if !ok {
                    return Err(CuError::InvalidValue);
                }
                self.check_range(ptr, (height - 1) * pitch + width * eb, false)?;
                h(format, channels)
                    .with_shape(TexShape::D2)
                    .with_layout(TexLayout::Pitch)
                    .with_address(ptr)
                    .with_width(width as u32)
                    .with_height(height as u32)
                    .with_depth(1)
                    .with_pitch(pitch as u32)
            }
        })
    }

    /// Make a texture object (cuTexObjectCreate); returns its handle.
    pub(crate) fn tex_create<P: Platform>(&mut self, gpu: &Device<P>, res: Resource, desc: TexDesc) -> Result<u64> {
        if !res.aligned(TEXTURE_ALIGNMENT) {
            return Err(CuError::InvalidValue);
        }
        let h = self.header(res, Some(&desc))?;
        let s = sampler(&h, &desc)?;
        let i = self.object_insert(gpu, Object::Texture(res, desc), h, Some(s))?;
        Ok(hw::tex::handle(i, i))
    }

    /// Make a surface object over array `id` (cuSurfObjectCreate); returns its handle.
    pub(crate) fn surf_create<P: Platform>(&mut self, gpu: &Device<P>, id: u64) -> Result<u64> {
        if self.array(id)?.desc.flags & ARRAY_SURFACE_LDST == 0 {
            return Err(CuError::InvalidValue);
        }
        let h = self.header(Resource::Array(id), None)?;
        self.object_insert(gpu, Object::Surface(id), h, None).map(u64::from)
    }

    /// Write an object's entries at a free index; returns the index.
    fn object_insert<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        o: Object,
        h: TexHeader,
        s: Option<TexSampler>,
    ) -> Result<u32> {
        let i = self.pool_index(gpu)?;
        if let Err(e) = self.write_entries(gpu, i, h, s) {
            self.pool_release(gpu, i);
            return Err(e);
        }
        self.pools(gpu)?.objects.insert(i, o);
        Ok(i)
    }

    /// A free index of the pools (made on first use).
    pub(super) fn pool_index<P: Platform>(&mut self, gpu: &Device<P>) -> Result<u32> {
        let p = self.pools(gpu)?;
        match p.free.pop() {
            Some(i) => Ok(i),
            None if p.next < POOL_ENTRIES => {
                p.next += 1;
                Ok(p.next - 1)
            }
            None => Err(CuError::OutOfMemory),
        }
    }

    /// Write the header (and sampler, else a cleared one) at index `i`.
    pub(super) fn write_entries<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        i: u32,
        h: TexHeader,
        s: Option<TexSampler>,
    ) -> Result<()> {
        let p = self.pools(gpu)?;
        let off = i as u64 * ENTRY_BYTES;
        gpu.pramin_write(p.phys + off, words(h.into_bytes()))?;
        match s {
            Some(s) => gpu.pramin_write(p.phys + POOL_BYTES + off, words(s.into_bytes())),
            None => gpu.pramin_zero(p.phys + POOL_BYTES + off, ENTRY_BYTES),
        }
    }

    /// Clear index `i`'s entries and make it free (the caller has waited for the work
    /// using it). Best effort: a PRAMIN failure leaves the index out of use.
    pub(super) fn pool_release<P: Platform>(&mut self, gpu: &Device<P>, i: u32) {
        let Some(p) = self.pools.as_mut() else { return };
        let off = i as u64 * ENTRY_BYTES;
        let cleared =
            gpu.pramin_zero(p.phys + off, ENTRY_BYTES).and(gpu.pramin_zero(p.phys + POOL_BYTES + off, ENTRY_BYTES));
        p.objects.remove(&i);
        if cleared.is_ok() {
            p.free.push(i);
        }
    }

    /// The object a handle names (`surface`: a surface object's, else a texture
    /// object's).
    pub(crate) fn object(&self, handle: u64, surface: bool) -> Result<Object> {
        let (i, smp) = hw::tex::handle_parts(handle);
        let o = self.pools.as_ref().and_then(|p| p.objects.get(&i)).copied();
        let fits = handle >> 32 == 0 && if surface { smp == 0 } else { smp == i };
        match o {
            Some(o @ Object::Surface(_)) if surface && fits => Ok(o),
            Some(o @ Object::Texture(..)) if !surface && fits => Ok(o),
            _ => Err(CuError::InvalidValue),
        }
    }

    /// Destroy the object a handle names (the caller has waited for the work using it):
    /// its entries are cleared and its index reused.
    pub(crate) fn object_destroy<P: Platform>(&mut self, gpu: &Device<P>, handle: u64, surface: bool) -> Result<()> {
        self.object(handle, surface)?;
        let (i, _) = hw::tex::handle_parts(handle);
        self.pool_release(gpu, i);
        Ok(())
    }

    /// The compute methods that bind the pools for a launch (none before the first
    /// object).
    pub(crate) fn pool_methods(&self, cmd: &mut fifo::Pushbuf<2048>) -> Result<()> {
        let Some(h) = self.pools.as_ref().map(|p| p.va).or(self.pools_at) else { return Ok(()) };
        let c = subch::COMPUTE;
        let max = POOL_ENTRIES - 1;
        // The sampler pool follows the header pool.
        let s = h + POOL_BYTES;
        cmd.incr(c, compute::SET_TEX_SAMPLER_POOL_A, &[addr40::hi(s), addr40::lo(s), max])
            .and_then(|_| cmd.incr(c, compute::SET_TEX_HEADER_POOL_A, &[addr40::hi(h), addr40::lo(h), max]))
            .map(|_| ())
            .map_err(|_| CuError::InvalidValue)
    }
}

/// The sampler entry of a texture with header `h` read as `desc` says: INVALID_VALUE for
/// an address or filter mode CUDA does not define, or linear filtering of integers.
pub(super) fn sampler(h: &TexHeader, desc: &TexDesc) -> Result<TexSampler> {
    // Trilinear optimization and seamless cube maps have nothing to act on without mipmaps
    // and cube maps; sRGB conversion is not modelled.
    if desc.flags & !TRSF_ALL != 0 {
        return Err(CuError::InvalidValue);
    }
    if desc.flags & TRSF_SRGB != 0 {
        return Err(CuError::NotSupported);
    }
    let mode = |m: u32| match m {
        0 => Ok(AddressMode::Wrap),
        1 => Ok(AddressMode::ClampToEdge),
        2 => Ok(AddressMode::Mirror),
        3 => Ok(AddressMode::Border),
        _ => Err(CuError::InvalidValue),
    };
    let filter = match desc.filter {
        0 => Filter::Point,
        1 if h.kind() == CompKind::Uint || h.kind() == CompKind::Sint => return Err(CuError::InvalidValue),
        1 => Filter::Linear,
        _ => return Err(CuError::InvalidValue),
    };
    let mip_filter = match desc.mip_filter {
        0 => Filter::Point,
        1 if h.kind() == CompKind::Uint || h.kind() == CompKind::Sint => return Err(CuError::InvalidValue),
        1 => Filter::Linear,
        _ => return Err(CuError::InvalidValue),
    };
    // Levels of detail in fixed point with 8 fraction bits: the bias signed 5.8, the
    // clamps unsigned 4.8 (NaN reads 0).
    let fixed = |v: f32, lo: f32, hi: f32| {
        let x = v.max(lo).min(hi) * 256.0;
        (if x < 0.0 { -((0.5 - x) as i32) } else { (x + 0.5) as i32 }) as u16
    };
    let [lo, hi] = desc.mip_clamp;
    let [r, g, b, a] = desc.border.map(f32::to_bits);
    Ok(TexSampler::new()
        .with_mip_filter(mip_filter)
        .with_lod_bias(fixed(desc.mip_bias, -16.0, 4095.0 / 256.0) & 0x1FFF)
        .with_min_lod(fixed(lo, 0.0, 4095.0 / 256.0))
        .with_max_lod(fixed(hi, 0.0, 4095.0 / 256.0))
        .with_address_u(mode(desc.address[0])?)
        .with_address_v(mode(desc.address[1])?)
        .with_address_p(mode(desc.address[2])?)
        .with_filter(filter)
        .with_normalized(desc.flags & TRSF_NORMALIZED_COORDINATES != 0)
        .with_valid(true)
        .with_border_r(r)
        .with_border_g(g)
        .with_border_b(b)
        .with_border_a(a))
}
