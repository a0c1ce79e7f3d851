use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    #[cfg(feature = "viewer")]
    let _runtime_dir = RuntimeDir::provide();
    let cli = supple::cli::Cli::parse();
    match supple::cli::execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A private `XDG_RUNTIME_DIR` for a process that has none, removed when dropped. The window's
/// graphics stack probes Wayland before X11, and without that variable the Wayland client
/// library prints "error: XDG_RUNTIME_DIR is invalid or not set" on runs that then succeed
/// (offscreen, or under X11): a message that says "error" on success.
#[cfg(feature = "viewer")]
struct RuntimeDir(Option<std::path::PathBuf>);

#[cfg(feature = "viewer")]
impl RuntimeDir {
    /// Sets `XDG_RUNTIME_DIR` to a new folder (mode 0700) unless it names a folder already.
    /// Called first thing in `main`.
    fn provide() -> Self {
        use std::os::unix::fs::DirBuilderExt;
        let usable =
            std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
        if usable {
            return RuntimeDir(None);
        }
        let dir = std::env::temp_dir().join(format!("supple-runtime-{}", std::process::id()));
        if std::fs::DirBuilder::new().mode(0o700).create(&dir).is_err() {
            return RuntimeDir(None);
        }
        // SAFETY: called first thing in `main`, before any other thread exists, so nothing reads
        // the environment concurrently.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
        RuntimeDir(Some(dir))
    }
}

#[cfg(feature = "viewer")]
impl Drop for RuntimeDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
