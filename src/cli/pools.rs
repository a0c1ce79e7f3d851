//! The thread pools a benchmark runs in, one per thread count it is asked for.

/// The pools a benchmark runs in, one per thread count of `--threads`: `None`, the current pool
/// (`RAYON_NUM_THREADS`, else one thread per core), when the list is empty.
pub fn pools(threads: &[u32]) -> Vec<Option<u32>> {
    if threads.is_empty() {
        vec![None]
    } else {
        threads.iter().copied().map(Some).collect()
    }
}

/// Runs `f` in a new rayon pool of `threads` threads, or in the current pool for `None`.
pub fn in_pool<T: Send>(
    threads: Option<u32>,
    f: impl FnOnce() -> anyhow::Result<T> + Send,
) -> anyhow::Result<T> {
    match threads {
        None => f(),
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build()?
            .install(f),
    }
}
