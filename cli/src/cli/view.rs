//! `chomp3 view`: the browser viewer of a table and a census, on 127.0.0.1 only.

use super::Shown;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use anyhow::{Result, bail};
use chomp3::f::lookup::Sources;
use chomp3::view;

use super::args::{CensusArg, TableArg};
use super::ctrl_c;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    census: CensusArg,
    /// Port to listen on (0: any free port; the address is printed)
    #[arg(long, default_value_t = 8321)]
    port: u16,
}

pub fn run(args: &Args) -> Result<()> {
    let sources = Sources::open(&args.table.named(), &args.census.named())?;
    if sources.table.is_none() && sources.census.is_none() {
        bail!(
            "nothing to view: no table at {} and no census at {}; give --table or --census",
            sources.table_path.path.shown(),
            sources.census_path.path.shown()
        );
    }
    let server = view::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), args.port))
        .map_err(anyhow::Error::msg)?;
    let addr = server.local_addr()?;
    for (what, path, used) in [
        ("table", &sources.table_path.path, sources.table.is_some()),
        (
            "census",
            &sources.census_path.path,
            sources.census.is_some(),
        ),
    ] {
        let state = if used { "" } else { "none at " };
        note!("chomp3 view: {what}: {state}{}", path.shown());
    }
    say!("chomp3 view: serving http://{addr}/ (Ctrl-C stops)");
    view::serve(&sources, &server, &ctrl_c())?;
    note!("chomp3 view: stopped");
    Ok(())
}
