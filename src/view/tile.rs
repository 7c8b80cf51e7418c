//! The table's heat-map tiles: 256 x 256 pixels, each pixel one sampled cell,
//! coloured by a measure, encoded as PNG (or as the raw sampled values).
//!
//! At scale `s` a pixel covers a block of `2^s x 2^s` cells and shows the cell
//! at the block's centre (offset `2^(s-1)` in each direction): a point sample,
//! as a map viewer shows a coarse level. It is exact at scale 0, where every
//! pixel is one cell; zoomed out it never averages two cells into a value that
//! no cell has. Reading 65,536 cells from the memory map bounds a tile's work
//! whatever its scale, so the browser never loads the table.

use crate::base::bytes::narrow;
use crate::f::census_file::Descriptors;
use crate::f::proof::RowStatus;
use crate::f::table::{Table, TableError};

/// Pixels on a tile's side.
pub(crate) const TILE: u64 = 256;
/// The largest scale: a pixel of `2^24` cells spans any table that can exist.
pub(crate) const MAX_SCALE: u64 = 24;
/// The raw format's value for a pixel with no cell (above the diagonal or
/// beyond the table).
pub(crate) const NO_CELL: u32 = u32::MAX;

/// What a tile's colour shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    /// `f(q,r) - q` on a logarithmic scale; dead cells grey, death cells red.
    Offset,
    /// Whether row `r` has died by column `q` (`f(q,r) <= q`).
    Dead,
    /// Columns until the row's proved start (from the census), log scale.
    Settle,
}

impl Measure {
    /// The measures' names, as the page and the query use them.
    pub(crate) const NAMES: [&'static str; 3] = ["offset", "dead", "settle"];

    /// The measure called `name` (one of [`Measure::NAMES`]).
    pub(crate) fn from_name(name: &str) -> Option<Measure> {
        match name {
            "offset" => Some(Measure::Offset),
            "dead" => Some(Measure::Dead),
            "settle" => Some(Measure::Settle),
            _ => None,
        }
    }
}

/// Which tile: `x` counts tiles along `q`, `y` along `r`, at scale `scale`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TileAt {
    /// `log2` of the cells per pixel side.
    pub scale: u64,
    /// Tile column (along `q`).
    pub x: u64,
    /// Tile row (along `r`).
    pub y: u64,
}

impl TileAt {
    /// The cell a pixel shows, if it lies in a table of `columns` columns.
    fn cell(&self, i: u64, j: u64, columns: u64) -> Option<(u32, u32)> {
        let q = ((self.x * TILE + i) << self.scale) + self.half();
        let r = self.row(j);
        (r <= q && q < columns).then_some((narrow::<u32, _>(q), narrow::<u32, _>(r)))
    }

    /// The row `r` pixel row `j` shows.
    fn row(&self, j: u64) -> u64 {
        ((self.y * TILE + j) << self.scale) + self.half()
    }

    fn half(&self) -> u64 {
        (1u64 << self.scale) >> 1
    }

    /// Refuses a tile whose first cell lies past the table's last column.
    pub fn check(&self, columns: u64) -> Result<(), String> {
        let first = |t: u64| t.checked_mul(TILE << self.scale);
        match (first(self.x), first(self.y)) {
            (Some(q), Some(r)) if q < columns && r < columns => Ok(()),
            _ => Err(format!(
                "tile x={} y={} at scale {} lies beyond the table ({columns} columns)",
                self.x, self.y, self.scale
            )),
        }
    }
}

/// The sampled `f(q,r)` of every pixel, row by row ([`NO_CELL`] where none).
pub fn values(t: &Table, at: TileAt) -> Result<Vec<u32>, TableError> {
    let columns = t.columns();
    let pixels: Vec<Option<(u32, u32)>> = (0..TILE)
        .flat_map(|j| (0..TILE).map(move |i| at.cell(i, j, columns)))
        .collect();
    let cells: Vec<(u32, u32)> = pixels.iter().flatten().copied().collect();
    let mut found = t.values_at(&cells)?.into_iter();
    Ok(pixels
        .iter()
        .map(|p| match p {
            Some(_) => found.next().expect("one value per cell"),
            None => NO_CELL,
        })
        .collect())
}

/// The tile as RGBA pixels, row by row. `census` is needed by [`Measure::Settle`].
pub fn pixels(
    t: &Table,
    census: Option<&Descriptors>,
    at: TileAt,
    m: Measure,
) -> Result<Vec<u8>, TableError> {
    let columns = t.columns();
    let log_n = ((columns + 1) as f64).ln();
    let values = match m {
        Measure::Settle => Vec::new(),
        _ => values(t, at)?,
    };
    let mut out = Vec::with_capacity(narrow::<usize, _>(4 * TILE * TILE));
    for j in 0..TILE {
        // The row's fate, looked up once per pixel row.
        let r = at.row(j);
        let fate = census
            .zip(u32::try_from(r).ok())
            .and_then(|(c, r)| c.status(r));
        for i in 0..TILE {
            let Some((q, _)) = at.cell(i, j, columns) else {
                out.extend([0, 0, 0, 0]);
                continue;
            };
            let f = || values[narrow::<usize, _>(j * TILE + i)];
            let rgb = match m {
                Measure::Offset if f() < q => DEAD,
                Measure::Offset if f() == q => DEATH,
                Measure::Offset => palette(f64::from(f() - q).ln() / log_n),
                Measure::Dead if f() <= q => DEAD,
                Measure::Dead => LIVE,
                Measure::Settle => settle(fate.as_ref(), q, log_n),
            };
            out.extend(rgb);
            out.push(255);
        }
    }
    Ok(out)
}

fn settle(fate: Option<&RowStatus>, q: u32, log_n: f64) -> [u8; 3] {
    match fate.map(|s| s.fate.start()) {
        None => OPEN,
        Some(start) if q >= start => SETTLED,
        Some(start) => palette(((start - q) as f64).ln_1p() / log_n),
    }
}

/// A horizontal colour bar of the palette, `TILE x 12` pixels (the page's legend).
pub(crate) fn legend() -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..12 {
        for i in 0..TILE {
            out.extend(palette(i as f64 / (TILE - 1) as f64));
            out.push(255);
        }
    }
    out
}

/// Encodes RGBA pixels as a PNG `width` pixels wide.
pub fn png(rgba: &[u8], width: u32) -> Vec<u8> {
    let height = narrow::<u32, _>(rgba.len()) / (4 * width);
    let mut bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut bytes, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let mut w = enc.write_header().expect("writing to memory");
    w.write_image_data(rgba).expect("writing to memory");
    w.finish().expect("writing to memory");
    bytes
}

/// A dead cell (`f(q,r) < q`), in [`Measure::Offset`] and [`Measure::Dead`].
pub(crate) const DEAD: [u8; 3] = [60, 60, 60];
/// The cell where a row dies (`f(q,r) = q`).
pub(crate) const DEATH: [u8; 3] = [220, 40, 40];
/// A live cell in [`Measure::Dead`].
pub(crate) const LIVE: [u8; 3] = [236, 231, 214];
/// A cell past its row's proved start, in [`Measure::Settle`].
pub(crate) const SETTLED: [u8; 3] = [200, 228, 200];
/// A row the census does not settle (or no census), in [`Measure::Settle`].
pub(crate) const OPEN: [u8; 3] = [150, 150, 150];

/// Colour for `t` in `[0, 1]`: dark blue through green to yellow (stops after
/// matplotlib's viridis, linearly interpolated).
pub(crate) fn palette(t: f64) -> [u8; 3] {
    const STOPS: [[f64; 3]; 5] = [
        [68.0, 1.0, 84.0],
        [59.0, 82.0, 139.0],
        [33.0, 145.0, 140.0],
        [94.0, 201.0, 98.0],
        [253.0, 231.0, 37.0],
    ];
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    // `x` lies in [0, 4] (clamped above): the casts below lose nothing.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let k = (x.floor() as usize).min(STOPS.len() - 2);
    let u = x - k as f64;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    // Between two colour stops, so within 0..=255.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    [0, 1, 2].map(|c| (a[c] + (b[c] - a[c]) * u).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_samples_its_block_centre() {
        let at = TileAt {
            scale: 2,
            x: 1,
            y: 0,
        };
        // Block (q 1024+4.., r 0+4..) has centre offset 2.
        assert_eq!(at.cell(1, 1, 10_000), Some((1024 + 4 + 2, 4 + 2)));
        assert_eq!(at.cell(1, 1, 1030), None, "beyond the table");
        assert!(at.check(1024).is_err());
        assert!(at.check(1025).is_ok());
    }

    /// A tile of a table by rows holds the values of the table it was made
    /// from, each the table's `f(q, r)` (the plain recurrence checks the
    /// table itself in `f::engine`).
    #[test]
    fn a_tile_of_a_table_by_rows_is_the_same_tile() {
        use crate::base::stop::Stop;
        let dir = tempfile::tempdir().unwrap();
        let by_columns = crate::f::compute::computed(&dir.path().join("t.c3t"), 300);
        let rows = dir.path().join("r.c3r");
        crate::f::table::transpose(&by_columns, &rows, &Stop::new(), &mut |_, _| {}).unwrap();
        let by_rows = Table::options().either_f().open(&rows).unwrap();
        for scale in [0, 1] {
            let at = TileAt { scale, x: 0, y: 0 };
            let a = values(&by_columns, at).unwrap();
            assert_eq!(values(&by_rows, at).unwrap(), a, "scale {scale}");
            for j in 0..TILE {
                for i in 0..TILE {
                    let v = a[narrow::<usize, _>(j * TILE + i)];
                    match at.cell(i, j, by_columns.columns()) {
                        Some((q, r)) => assert_eq!(v, by_columns.value(q, r).unwrap()),
                        None => assert_eq!(v, NO_CELL),
                    }
                }
            }
        }
    }

    #[test]
    fn palette_runs_from_first_to_last_stop() {
        assert_eq!(palette(0.0), [68, 1, 84]);
        assert_eq!(palette(1.0), [253, 231, 37]);
        assert_eq!(palette(7.0), palette(1.0));
    }
}
