"""Remove contextual-alternate ligatures (calt/liga/clig/dlig) from a font's GSUB."""
import sys
from fontTools.ttLib import TTFont

DROP = {"calt", "liga", "clig", "dlig"}
src, dst = sys.argv[1], sys.argv[2]
font = TTFont(src)
gsub = font["GSUB"].table
records = gsub.FeatureList.FeatureRecord
keep = [i for i, r in enumerate(records) if r.FeatureTag not in DROP]
remap = {old: new for new, old in enumerate(keep)}
gsub.FeatureList.FeatureRecord = [records[i] for i in keep]
gsub.FeatureList.FeatureCount = len(keep)
for script in gsub.ScriptList.ScriptRecord:
    langs = [script.Script.DefaultLangSys] + [l.LangSys for l in script.Script.LangSysRecord]
    for ls in langs:
        if ls is None:
            continue
        ls.FeatureIndex = [remap[i] for i in ls.FeatureIndex if i in remap]
        ls.FeatureCount = len(ls.FeatureIndex)
        if ls.ReqFeatureIndex != 0xFFFF:
            ls.ReqFeatureIndex = remap.get(ls.ReqFeatureIndex, 0xFFFF)
font.save(dst)
print(dst, sorted({r.FeatureTag for r in gsub.FeatureList.FeatureRecord}))
