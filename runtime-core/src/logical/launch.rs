//! A logical GPU's modules and launches: every module loaded on every GPU of the gang
//! (the first GPU's data shared), every launch split into ranges of blocks, one per GPU,
//! ordered by the first GPU's stream ([`LogicalGpu::split`]).

use super::{Gang, LogicalGpu, split_even};
use crate::api::module::{FuncHandle, ModuleHandle, legacy_launch};
use crate::api::{CtxHandle, Gpu, Object, object};
use crate::channel::Fence;
use crate::context::module::{LaunchConfig, Params};
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::{string::String, sync::Arc, vec::Vec};
use hw::mmu::PAGE_SIZE;
use ptx::Program;

impl<P: Platform> LogicalGpu<P> {
    /// See [`Gpu::module_load_ptx`]: on a gang, loaded on every GPU.
    pub fn module_load_ptx(&self, h: CtxHandle, src: &str) -> Result<ModuleHandle> {
        let m = self.gpu.module_load_ptx(h, src)?;
        self.loaded(h, m)
    }

    /// See [`Gpu::module_load_image`]: on a gang, loaded on every GPU.
    pub fn module_load_image(&self, h: CtxHandle, image: &[u8]) -> Result<ModuleHandle> {
        let m = self.gpu.module_load_image(h, image)?;
        self.loaded(h, m)
    }

    /// See [`Gpu::module_load`]: on a gang, loaded on every GPU.
    pub fn module_load(&self, h: CtxHandle, prog: Program) -> Result<ModuleHandle> {
        let m = self.gpu.module_load(h, prog)?;
        self.loaded(h, m)
    }

    /// See [`Gpu::module_load_placed`]: on a gang, loaded on every GPU.
    pub fn module_load_placed(&self, h: CtxHandle, prog: Program, place: &[(&str, u64)]) -> Result<ModuleHandle> {
        let m = self.gpu.module_load_placed(h, prog, place)?;
        self.loaded(h, m)
    }

    /// See [`Gpu::module_unload`]: on a gang, its copies go first.
    pub fn module_unload(&self, h: CtxHandle, m: ModuleHandle) -> Result<()> {
        if let Some(g) = self.gang.get() {
            self.gpu.with_objs(h, &[m.named()], |_, c| c.module(m.id()).map(drop))?;
            self.unloading(g, h, m);
        }
        self.gpu.module_unload(h, m)
    }

    /// See [`Gpu::launch`]: on a gang, the grid's blocks split into contiguous ranges,
    /// one per GPU.
    pub fn launch(&self, h: CtxHandle, f: FuncHandle, cfg: &LaunchConfig, params: Params<'_>) -> Result<Fence> {
        match self.gang.get() {
            Some(g) => self.launch_split(g, h, f, cfg, params),
            None => self.gpu.launch(h, f, cfg, params),
        }
    }

    /// See [`Gpu::launch_grid`]: on a gang, split as [`LogicalGpu::launch`] splits.
    pub fn launch_grid(&self, h: CtxHandle, f: FuncHandle, grid: [u32; 2]) -> Result<Fence> {
        let Some(g) = self.gang.get() else { return self.gpu.launch_grid(h, f, grid) };
        let (cfg, params) = self.gpu.with_objs(h, &[f.named()], |_, c| legacy_launch(c, f, grid))?;
        self.launch_split(g, h, f, &cfg, Params::Buffer(&params))
    }

    /// See [`Gpu::func_set_max_dynamic_shared`]: on a gang, for the kernel's copies too.
    pub fn func_set_max_dynamic_shared(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        self.gpu.func_set_max_dynamic_shared(h, f, bytes)?;
        for (o, c, of) in self.member_kernels(h, f)? {
            o.func_set_max_dynamic_shared(c, of, bytes)?;
        }
        Ok(())
    }

    /// See [`Gpu::func_set_preferred_carveout`]: on a gang, for the kernel's copies too.
    pub fn func_set_preferred_carveout(&self, h: CtxHandle, f: FuncHandle, percent: i32) -> Result<()> {
        self.gpu.func_set_preferred_carveout(h, f, percent)?;
        for (o, c, of) in self.member_kernels(h, f)? {
            o.func_set_preferred_carveout(c, of, percent)?;
        }
        Ok(())
    }

    /// The copies of kernel `f` of context `h` on the other GPUs of this device's gang
    /// (none off a gang): (GPU, context there, kernel there), which run its other blocks.
    #[allow(clippy::type_complexity)]
    pub fn member_kernels(&self, h: CtxHandle, f: FuncHandle) -> Result<Vec<(Arc<Gpu<P>>, CtxHandle, FuncHandle)>> {
        let Some(g) = self.gang.get() else { return Ok(Vec::new()) };
        let funcs = self.funcs(g, h, f)?;
        let others = self.others(g, h)?;
        Ok(g.others.iter().zip(others).zip(funcs).map(|((o, c), f)| (o.clone(), c, f)).collect())
    }

    /// Module `m` was loaded into context `h`: on a gang, load it on the other GPUs too
    /// (unloaded again if that fails).
    fn loaded(&self, h: CtxHandle, m: ModuleHandle) -> Result<ModuleHandle> {
        if let Some(g) = self.gang.get()
            && let Err(e) = self.load_others(g, h, m)
        {
            let _ = self.gpu.module_unload(h, m);
            return Err(e);
        }
        Ok(m)
    }

    /// Load module `m` of context `h` on the other GPUs, sharing its data.
    fn load_others(&self, g: &Gang<P>, h: CtxHandle, m: ModuleHandle) -> Result<()> {
        let others = self.others(g, h)?;
        let (prog, data, extents) = self.gpu.with_ctx(h, |_, c| {
            let l = c.module(m.id())?;
            let data = l.data();
            let mut extents: Vec<(u64, u64, u64)> = Vec::new();
            for va in core::iter::once(data.global).chain(data.constant.map(|c| c.0)) {
                let (phys, bytes) = c.vram_extent(va).ok_or(CuError::Unknown)?;
                extents.push((va, phys, bytes));
            }
            Ok((l.program().clone(), data, extents))
        })?;
        let mut handles = Vec::new();
        let mut mapped = Vec::new();
        let r = (|| {
            for (o, &c) in g.others.iter().zip(&others) {
                handles.push(o.module_load_sharing(c, prog.clone(), data.clone())?);
                for &(va, phys, bytes) in &extents {
                    o.mem_map_peer(c, va, phys, bytes, 0)?;
                }
                for v in &data.managed {
                    o.mem_map_host_at(c, v.addr & !(PAGE_SIZE - 1), v.mem.clone())?;
                }
            }
            mapped.extend(extents.iter().map(|e| e.0));
            mapped.extend(data.managed.iter().map(|v| v.addr & !(PAGE_SIZE - 1)));
            Ok(())
        })();
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.modules.insert(m.0, (handles, mapped));
        }
        if r.is_err() {
            self.unloading(g, h, m);
        }
        r
    }

    /// Module `m` of context `h` is being unloaded: unload its copies first.
    fn unloading(&self, g: &Gang<P>, h: CtxHandle, m: ModuleHandle) {
        let (others, entry) = {
            let mut ctxs = g.ctxs.lock();
            let Some(ctx) = ctxs.get_mut(&h.0) else { return };
            ctx.funcs.retain(|_, (module, _)| *module != m.0);
            (ctx.others.clone(), ctx.modules.remove(&m.0))
        };
        let Some((handles, mapped)) = entry else { return };
        for (o, &c) in g.others.iter().zip(&others) {
            for &va in &mapped {
                let _ = o.mem_unmap_foreign(c, va);
            }
        }
        for ((o, &c), &fm) in g.others.iter().zip(&others).zip(&handles) {
            let _ = o.module_unload(c, fm);
        }
    }

    /// The kernels on the other GPUs standing for kernel `f` of context `h`.
    fn funcs(&self, g: &Gang<P>, h: CtxHandle, f: FuncHandle) -> Result<Vec<FuncHandle>> {
        if let Some(v) = g.ctxs.lock().get(&h.0).and_then(|c| c.funcs.get(&f.0)) {
            return Ok(v.1.clone());
        }
        let (module, name): (u64, String) = self.gpu.with_objs(h, &[f.named()], |_, c| {
            let (m, i) = c.func(f.id())?;
            Ok((m, c.module(m)?.kernel(i)?.name.clone()))
        })?;
        let (others, handles) = {
            let ctxs = g.ctxs.lock();
            let ctx = ctxs.get(&h.0).ok_or(CuError::InvalidContext)?;
            let m = ctx.modules.get(&object(h, module)).ok_or(CuError::InvalidHandle)?;
            (ctx.others.clone(), m.0.clone())
        };
        let mut funcs = Vec::new();
        for ((o, &c), &fm) in g.others.iter().zip(&others).zip(&handles) {
            funcs.push(o.module_get_function(c, fm, &name)?);
        }
        if let Some(ctx) = g.ctxs.lock().get_mut(&h.0) {
            ctx.funcs.insert(f.0, (object(h, module), funcs.clone()));
        }
        Ok(funcs)
    }

    /// cuLaunchKernel on a gang: the grid's blocks split into contiguous ranges, one per
    /// GPU, ordered by the first GPU's stream ([`LogicalGpu::split`]).
    fn launch_split(
        &self,
        g: &Gang<P>,
        h: CtxHandle,
        f: FuncHandle,
        cfg: &LaunchConfig,
        params: Params<'_>,
    ) -> Result<Fence> {
        let s = cfg.stream;
        let others = self.others(g, h)?;
        // Texture and surface references are bound by the first GPU's part; the others bind
        // the same slots to the same entries of its pools (`share_pools`).
        let refs = self.gpu.with_objs(h, &[f.named()], |_, c| Ok(c.module(c.func(f.id())?.0)?.has_references()))?;
        let funcs = self.funcs(g, h, f)?;
        let blocks = cfg.grid.iter().map(|&d| d as u64).product::<u64>();
        // The first GPU's range first: it checks the launch as a lone launch would.
        let parts: Vec<(Option<usize>, (u64, u64))> = split_even(blocks, others.len() + 1)
            .into_iter()
            .enumerate()
            .filter(|&(m, (_, count))| m == 0 || count > 0)
            .map(|(m, range)| (m.checked_sub(1), range))
            .collect();
        let lead = f;
        let fence = self.split(h, s, &parts, |gpu, c, stream, owner, &(first, count)| {
            let (f, cfg) = (owner.map_or(f, |m| funcs[m]), LaunchConfig { stream, ..*cfg });
            let range = Some((first as u32, count as u32));
            // The first GPU's slots, its part launched (its entries up to date).
            let lent = match owner {
                Some(_) if refs => {
                    self.share_pools(h)?;
                    Some(self.gpu.with_objs(h, &[lead.named()], |_, x| Ok(x.ref_slots(x.func(lead.id())?.0)))?)
                }
                _ => None,
            };
            gpu.launch_refs_ready(c, &[f.named(), stream.named()], f, |dev, x| {
                x.refs_lent = lent;
                let r = x.launch(dev, x.func(f.id())?, &cfg, params, range);
                x.refs_lent = None;
                r
            })
        })?;
        if refs {
            // The entries stay as they are until every GPU's part is done (a launch that
            // rebinds a reference waits for this fence before it rewrites them).
            self.gpu.with_objs(h, &[lead.named()], |_, x| {
                let m = x.func(lead.id())?.0;
                x.refs_used(m, s.local(), fence);
                Ok(())
            })?;
        }
        Ok(fence)
    }
}
