@fused.udf(cache_max_age="1h")
def udf(prices: str = "85,120,95,240,180", band_width: int = 100):
    """Listings per price band, from comma-separated prices. Standard library only, so it runs
    anywhere; its tests (price_bands.yaml) run after every deploy."""
    import statistics

    values = [float(p) for p in prices.split(",") if p.strip()]
    if not values:
        raise ValueError("prices is empty: give comma-separated prices, e.g. 85,120,95")
    bands = {}
    for v in values:
        low = int(v // band_width) * band_width
        key = f"{low}-{low + band_width - 1}"
        bands[key] = bands.get(key, 0) + 1
    return {"count": len(values), "median": statistics.median(values), "bands": dict(sorted(bands.items()))}
