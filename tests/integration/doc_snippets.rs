//! Every TOML block of the README and of the guide (`docs/*.md`) loads as a scene: a reader who
//! copies one into a file at the repository's root gets a world, not an error. Mesh paths in
//! the blocks are relative to that root. The Rust blocks are doctests (`src/doctests.rs`).

use std::fs;
use std::path::{Path, PathBuf};

/// The Markdown files whose blocks are checked: the README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Every fenced block of every page, with the page's path from the repository's root.
fn page_blocks() -> Vec<(String, Block)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for page in pages() {
        let markdown = fs::read_to_string(&page).expect("the page is readable");
        let shown = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        all.extend(blocks(&markdown).into_iter().map(|b| (shown.clone(), b)));
    }
    all
}

/// A fenced block: the line of its opening fence (1-based), its info string and its text.
struct Block {
    line: usize,
    info: String,
    text: String,
}

/// The fenced blocks of a Markdown text (fences of three or more backticks, possibly indented).
fn blocks(markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(usize, String, String, usize)> = None; // line, fence, info, indent
    let mut text = String::new();
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match &open {
            None if ticks >= 3 => {
                let fence = "`".repeat(ticks);
                let info = trimmed[ticks..].trim().to_string();
                open = Some((n + 1, fence, info, indent));
                text.clear();
            }
            None => {}
            Some((start, fence, info, _)) if trimmed.trim_end() == fence.as_str() => {
                found.push(Block {
                    line: *start,
                    info: info.clone(),
                    text: std::mem::take(&mut text),
                });
                open = None;
            }
            Some((.., fence_indent)) => {
                let strip = indent.min(*fence_indent);
                text.push_str(&line[strip..]);
                text.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    found
}

#[test]
fn every_toml_block_of_the_readme_and_the_guide_loads_as_a_scene() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene_path = root.join("snippet.toml");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (shown, block) in page_blocks() {
        if block.info.split_whitespace().next() != Some("toml") {
            continue;
        }
        checked += 1;
        if let Err(e) = supple::scene::parse_scene(&block.text, &scene_path) {
            failures.push(format!(
                "{shown}:{}: the TOML block does not load: {e}",
                block.line
            ));
        }
    }
    assert!(checked > 0, "no TOML block found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_page_of_the_guide_is_a_doctest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doctests = fs::read_to_string(root.join("src/doctests.rs")).expect("src/doctests.rs");
    for page in pages() {
        let rel = page.strip_prefix(root).expect("a page of the repository");
        let include = format!("include_str!(\"../{}\")", rel.display());
        assert!(
            doctests.contains(&include),
            "{} is not included in src/doctests.rs, so its Rust blocks are not compiled",
            rel.display()
        );
    }
}

#[test]
fn every_block_names_its_language() {
    // rustdoc compiles an unlabelled block as Rust; every block says what it is.
    let known = ["rust", "sh", "toml", "text", "python", "json", "no_run"];
    let mut failures = Vec::new();
    for (shown, block) in page_blocks() {
        let first = block.info.split([',', ' ']).next().unwrap_or("");
        if !known.contains(&first) {
            failures.push(format!(
                "{shown}:{}: a block without a known language (`{}`)",
                block.line, block.info
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_scene_key_is_documented_in_the_scene_file_reference() {
    // The keys are the fields of the raw tables that serde reads (`src/scene/raw.rs`), under
    // their serde names.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let raw = fs::read_to_string(root.join("src/scene/raw.rs")).expect("src/scene/raw.rs");
    let reference =
        fs::read_to_string(root.join("docs/scene-files.md")).expect("docs/scene-files.md");
    let mut renamed: Option<String> = None;
    let mut missing = Vec::new();
    let mut keys = 0;
    for line in raw.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[serde(rename = \"") {
            renamed = rest.split('"').next().map(str::to_string);
            continue;
        }
        let Some(field) = line.strip_prefix("pub(super) ") else {
            continue;
        };
        let Some((name, _)) = field.split_once(':') else {
            continue;
        };
        let key = renamed.take().unwrap_or_else(|| name.trim().to_string());
        keys += 1;
        let documented = [
            format!("`{key}`"),
            format!("`{key} ="),
            format!("[[{key}]]"),
            format!("[{key}]"),
        ]
        .iter()
        .any(|form| reference.contains(form.as_str()));
        if !documented {
            missing.push(key);
        }
    }
    assert!(keys > 50, "only {keys} keys found in src/scene/raw.rs");
    assert!(
        missing.is_empty(),
        "scene keys missing from docs/scene-files.md: {}",
        missing.join(", ")
    );
}

#[test]
fn every_report_stage_is_documented_in_the_outputs_page() {
    // The stage names of the report's `stage_ms` and of the scene benchmark's CSV columns, as
    // the library gives them (one per constraint family of the registry, and the other stages).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let outputs = fs::read_to_string(root.join("docs/outputs.md")).expect("docs/outputs.md");
    let names: Vec<&str> = supple::timing::StageMs::names().collect();
    assert!(names.len() >= 20, "only {} stage names", names.len());
    let missing: Vec<&str> = names
        .into_iter()
        .filter(|name| !outputs.contains(&format!("`{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "report stages missing from docs/outputs.md: {}",
        missing.join(", ")
    );
}
