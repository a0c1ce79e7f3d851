//! Running the `supple` program in tests.

use std::path::Path;
use std::process::Command;

/// Runs `supple ARGS` in `dir`: (success, stdout, stderr).
pub fn supple(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_supple"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
