"""Geography helpers shared by every canvas, imported as `geo`."""
import pandas as pd

CITY_BBOXES: dict[str, tuple[float, float, float, float]] = {
    "nyc": (-74.26, 40.49, -73.70, 40.92),
    "sf": (-122.52, 37.70, -122.35, 37.84),
}


def city_bbox(city: str) -> tuple[float, float, float, float]:
    """The (west, south, east, north) box of a city."""
    return CITY_BBOXES[city]


def within_bbox(df: pd.DataFrame, bbox: tuple[float, float, float, float]) -> pd.DataFrame:
    """Rows whose lng/lat fall inside bbox."""
    west, south, east, north = bbox
    return df[df["lng"].between(west, east) & df["lat"].between(south, north)]
