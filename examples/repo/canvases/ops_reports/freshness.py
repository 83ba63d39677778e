@fused.udf(cache_max_age="5m")
def udf(city: str = "nyc", max_age_hours: int = 26):
    """Whether the city's listings file was refreshed recently."""
    import datetime as dt

    import pandas as pd

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet", columns=["first_seen"])
    newest = pd.to_datetime(df["first_seen"]).max()
    age = dt.datetime.now(dt.timezone.utc) - newest.tz_localize("UTC")
    return pd.DataFrame([{"city": city, "newest": newest, "stale": age > dt.timedelta(hours=max_age_hours)}])
