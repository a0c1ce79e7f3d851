use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = supple::cli::Cli::parse();
    match supple::cli::execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
