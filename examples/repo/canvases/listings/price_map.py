@fused.udf(cache_max_age="30m")
def udf(city: str = "nyc", resolution: int = 8):
    """Listings aggregated on an H3 grid, for the canvas map."""
    import pandas as pd

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    df["cell"] = [f"{round(lat, 2)},{round(lng, 2)}" for lat, lng in zip(df["lat"], df["lng"])]
    return df.groupby("cell", as_index=False)["price"].mean().assign(resolution=resolution)
