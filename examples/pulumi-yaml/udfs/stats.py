@fused.udf(cache_max_age="10m")
def udf(city: str = "nyc"):
    import pandas as pd

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    return df.groupby("neighbourhood", as_index=False)["price"].median()
